// The one colour of each head, in every figure that tells heads apart (the head bands under a
// concatenation, the memory order of the split, the rows of the why panel's bars): head h+1 is
// HEAD_COLOURS[h], Okabe-Ito colours, safe for colour-blind viewers, cycling after eight heads.
export const HEAD_COLOURS = Object.freeze([
  '#E69F00',
  '#56B4E9',
  '#009E73',
  '#F0E442',
  '#0072B2',
  '#D55E00',
  '#CC79A7',
  '#999999',
]);

/** The colour of head h (0-based). */
export const headColour = (h) => HEAD_COLOURS[h % HEAD_COLOURS.length];
