// Registers <headwise-explorer>. Importing explorer-element.js alone defines nothing.
import { HeadwiseExplorer } from './explorer-element.js';

if (!customElements.get('headwise-explorer')) customElements.define('headwise-explorer', HeadwiseExplorer);

export { HeadwiseExplorer };
