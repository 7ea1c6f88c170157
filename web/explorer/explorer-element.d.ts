// Types of the <headwise-explorer> element class ("headwise/explorer"). Importing it defines no
// tag; "headwise/explorer/define" registers <headwise-explorer>.
import type { Headwise } from '../headwise.js';

export type ExplorerPanel = 'input' | 'why' | 'steps' | 'heads' | 'loop' | 'order' | 'learn';
export type ExplorerLearnHeads = '1,2' | '1,2,4';
/** The Learn panel's experiment: 1 head vs 2 heads, or 1 layer vs 2 layers (induction). */
export type ExplorerLearnExperiment = 'heads' | 'layers';
/** The heads panel's weights: a shipped model's trained heads, or the same shapes untrained. */
export type ExplorerHeadsWeights = 'trained' | 'random';
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
  headsWeights: ExplorerHeadsWeights;
}

/**
 * What setConfig accepts: the attribute names (and dModel / maxTokens), as strings, numbers or
 * booleans, validated like URL parameters.
 */
export interface ExplorerConfig {
  panel?: ExplorerPanel | 'all' | '';
  /** 'custom' keeps the current width and heads (so a getState() result can be given back). */
  preset?: ExplorerPreset | 'custom';
  width?: number | string;
  dModel?: number | string;
  heads?: number | string;
  causal?: boolean | number | string;
  seed?: number | string;
  sentence?: string;
  slide?: boolean | number | string;
  'max-tokens'?: number | string;
  maxTokens?: number | string;
  theme?: ExplorerTheme;
  'learn-seed'?: number | string;
  learnSeed?: number | string;
  'learn-width'?: number | string;
  learnWidth?: number | string;
  'learn-heads'?: ExplorerLearnHeads;
  learnHeads?: ExplorerLearnHeads;
  'learn-experiment'?: ExplorerLearnExperiment;
  learnExperiment?: ExplorerLearnExperiment;
  'heads-weights'?: ExplorerHeadsWeights;
  headsWeights?: ExplorerHeadsWeights;
}

/** See ExplorerState.lifecycle. */
export type ExplorerLifecycle = 'idle' | 'loading' | 'ready' | 'paused' | 'error';

/**
 * A plain copy of the element's state (also the result of every slide-control message). Its
 * option fields (panel ... maxTokens) are named and valued as setConfig accepts them; the other
 * fields are not options and setConfig refuses them.
 */
export interface ExplorerState {
  panel: ExplorerPanel | 'all';
  preset: ExplorerPreset | 'custom';
  width: number;
  heads: number;
  causal: boolean;
  seed: number;
  sentence: string;
  slide: boolean;
  maxTokens: number;
  theme: ExplorerTheme;
  learnSeed: number;
  learnWidth: number;
  learnHeads: ExplorerLearnHeads;
  learnExperiment: ExplorerLearnExperiment;
  headsWeights: ExplorerHeadsWeights;
  /** 0..4, an index into steps. */
  step: number;
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
}

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
