// "headwise/explorer/define": registers <headwise-explorer> (once) and re-exports the class.
export { HeadwiseExplorer } from './explorer-element.js';
export type {
  ExplorerConfig,
  ExplorerOptions,
  ExplorerState,
  ExplorerPanel,
  ExplorerPreset,
  ExplorerStep,
} from './explorer-element.js';
