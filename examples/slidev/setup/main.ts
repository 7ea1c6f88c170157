// Registers <headwise-explorer> for the slides: the package's registering entry, as an app would.
import { defineAppSetup } from '@slidev/types';
import 'headwise/explorer/define';

export default defineAppSetup(() => {});
