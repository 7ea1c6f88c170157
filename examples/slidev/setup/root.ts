// Connects the deck's navigation to the headwise panels on its slides (headwise-slidev.ts).
import { defineRootSetup } from '@slidev/types';
import { useNav } from '@slidev/client';
import { connectHeadwise } from '../headwise-slidev';

export default defineRootSetup(() => {
  connectHeadwise(useNav());
});
