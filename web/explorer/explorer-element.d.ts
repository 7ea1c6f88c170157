// Types of the <headwise-explorer> element class ("headwise/explorer"). Importing it defines no
// tag; "headwise/explorer/define" registers <headwise-explorer>.
import type { Headwise } from '../headwise.js';

/** The registry's panel ids (web/explorer/panels/index.js; tests/js/explorer-types.test.js compares). */
export type ExplorerPanel = 'input' | 'why' | 'steps' | 'heads' | 'loop' | 'order' | 'learn' | 'story' | 'kv';
export type ExplorerLearnHeads = '1,2' | '1,2,4';
/** The Learn panel's experiment: 1 head vs 2 heads, or 1 layer vs 2 layers (induction). */
export type ExplorerLearnExperiment = 'heads' | 'layers' | 'story';
/** The heads panel's weights: a shipped model's trained heads, or the same shapes untrained. */
export type ExplorerHeadsWeights = 'trained' | 'random';
/** How "Train live" of 1 layer vs 2 layers trains: a worker per model, or batches split over the pool. */
export type ExplorerLearnSplit = 'model' | 'data';
export type ExplorerPreset = 'toy' | 'gpt2' | 'gpt3';
/** 'auto' follows the viewer's light or dark setting; the default is 'light'. */
export type ExplorerTheme = 'light' | 'dark' | 'auto';
export type ExplorerStep = 'project' | 'split' | 'attend' | 'merge' | 'out-project';

/** The element's options (also readable as attributes: panel, preset, width, heads, ...). */
export interface ExplorerOptions {
  /** null: all panels. */
  panel: ExplorerPanel | null;
  preset: ExplorerPreset | 'custom';
  dModel: number;
  heads: number;
  causal: boolean;
  seed: number;
  /** One sentence per line; lines of the same number of tokens are one batch. */
  sentence: string;
  slide: boolean;
  maxTokens: number;
  theme: ExplorerTheme;
  /** The Learn panel's seed, width (16, 32 or 64) and the runs it trains side by side. */
  learnSeed: number;
  learnWidth: number;
  learnHeads: ExplorerLearnHeads;
  learnExperiment: ExplorerLearnExperiment;
  learnSplit: ExplorerLearnSplit;
  headsWeights: ExplorerHeadsWeights;
  /** The heads panel's locked token: its index in the sentence as typed, -1 for none. */
  headsLock: number;
  /** The steps panel's step, 0..4 (an index into ExplorerState.steps). */
  step: number;
  /** Word order's own causal mask and position kind (one of the core's: none, learned, ...). */
  orderMask: boolean;
  orderPositions: string;
  /** The kv panel's K/V heads, a divisor of its 8 query heads. */
  kvHeads: 1 | 2 | 4 | 8;
}

// An option's attribute name: its property in kebab case (learnSeed: learn-seed).
type Kebab<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `-${Lowercase<C>}`}${Kebab<Rest>}`
  : S;
// What a message may carry for a value: a boolean or a number also as text.
type Given<V> = V extends boolean ? boolean | number | string : V extends number ? number | string : V;
type Named = 'panel' | 'dModel' | 'step';

/**
 * What setConfig accepts: the attribute names (and the options' properties, e.g. dModel /
 * maxTokens), as strings, numbers or booleans, validated like URL parameters.
 */
export type ExplorerConfig = {
  [K in keyof ExplorerOptions as K extends Named ? never : K]?: Given<ExplorerOptions[K]>;
} & {
  [K in keyof ExplorerOptions as K extends Named ? never : Kebab<K>]?: Given<ExplorerOptions[K]>;
} & {
  panel?: ExplorerPanel | 'all' | '';
  width?: number | string;
  dModel?: number | string;
  /** 0..4 or a step's name. */
  step?: number | ExplorerStep | `${number}`;
  /** 'custom' keeps the current width and heads (so a getState() result can be given back). */
  preset?: ExplorerPreset | 'custom';
};

/** See ExplorerState.lifecycle. */
export type ExplorerLifecycle = 'idle' | 'loading' | 'ready' | 'paused' | 'error';

/**
 * A plain copy of the element's state (also the result of every slide-control message). Its
 * option fields are named and valued as setConfig accepts them; the other fields are not options
 * and setConfig refuses them.
 */
export type ExplorerState = Omit<ExplorerOptions, 'panel' | 'dModel'> & {
  panel: ExplorerPanel | 'all';
  width: number;
  stepName: ExplorerStep;
  steps: ExplorerStep[];
  /** The last computation: null before the first one. */
  status: 'ok' | 'shapes-only' | 'invalid' | 'sentence' | null;
  /** The panels have been drawn at least once. */
  ready: boolean;
  /** Near the viewport, so computing and drawing (out of view it does no work). */
  active: boolean;
  /** idle (not yet near the viewport), loading, ready, paused (out of view) or error (load failed). */
  lifecycle: ExplorerLifecycle;
  /** Why URL parameters or attributes were ignored, in words (empty if none were). */
  notes: string[];
};

/** Detail of the `headwise-render` event, fired after each render. */
export interface ExplorerRenderDetail {
  status: 'ok' | 'shapes-only' | 'invalid' | 'sentence';
  /** The computation of every part the shown panels view (layer, forward passes, five steps). */
  computeMs: number;
  /** Drawing the panels (for a progressive first render, until the last panel). */
  panelsMs: number;
}

export class HeadwiseExplorer extends HTMLElement {
  static readonly observedAttributes: string[];
  /** How the module is loaded (default: loadHeadwise(), shared by every element on the page). */
  static loadModule: () => Promise<Headwise>;
  /** A copy of the current options. */
  readonly options: ExplorerOptions;
  /** Near the viewport (see ExplorerState.active). */
  readonly active: boolean;
  /** Visibility and loading (see ExplorerState.lifecycle). */
  readonly lifecycle: ExplorerLifecycle;
  /** Resolves once the element is near the viewport. */
  whenActive(): Promise<void>;
  /** Changes options without validation (trusted callers); recomputes on the next frame. */
  setOptions(partial: Partial<ExplorerOptions>, options?: { immediate?: boolean }): void;
  /** Validated change; throws TypeError / RangeError and changes nothing if a value is unusable. */
  setConfig(config: ExplorerConfig): ExplorerState;
  nextStep(): ExplorerState;
  previousStep(): ExplorerState;
  /** 0..4 (clamped). */
  goToStep(step: number): ExplorerState;
  /** The Learn panel's training (see docs/explorer.md for the summary they return). */
  startTraining(): object;
  pauseTraining(): object;
  resetTraining(): object;
  trainingState(): object;
  getState(): ExplorerState;
}

declare global {
  interface HTMLElementTagNameMap {
    'headwise-explorer': HeadwiseExplorer;
  }
  interface HTMLElementEventMap {
    'headwise-render': CustomEvent<ExplorerRenderDetail>;
  }
}
