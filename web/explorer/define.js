// Registers <headwise-explorer>. Importing explorer-element.js alone defines nothing. Where there
// is no custom-element registry (Node, server-side rendering) it registers nothing and does not throw.
import { HeadwiseExplorer } from './explorer-element.js';

const registry = globalThis.customElements;
if (registry && !registry.get('headwise-explorer')) registry.define('headwise-explorer', HeadwiseExplorer);

export { HeadwiseExplorer };
