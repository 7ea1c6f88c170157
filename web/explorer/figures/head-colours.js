// The one colour of each head, in every figure that tells heads apart (the head bands under a
// concatenation, the memory order of the split, the rows of the why panel's bars): head h+1 is the
// palette's colour `head${h % 8}` (figure.js resolves it for the theme). Okabe-Ito colours, safe for
// colour-blind viewers; on the light theme each is darkened in linear light, hue kept, to >= 3:1
// against white (orange E69F00 is 2.25:1 there), as every bar must be.
export const HEAD_COLOURS = Object.freeze({
  light: Object.freeze(['#c08400', '#4797c4', '#009e73', '#9a9227', '#0072b2', '#d55e00', '#c776a2', '#8f8f8f']),
  dark: Object.freeze(['#e69f00', '#56b4e9', '#009e73', '#f0e442', '#0072b2', '#d55e00', '#cc79a7', '#999999']),
});

/** The palette name of head h's colour (0-based): the same for a head in every figure. */
export const headColour = (h) => `head${h % HEAD_COLOURS.light.length}`;

/** Palette entries head0..head7 of a theme, for figure.js. */
export const headPalette = (theme) => Object.fromEntries(HEAD_COLOURS[theme].map((c, h) => [`head${h}`, c]));
