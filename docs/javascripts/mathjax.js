// MathJax 3 for pymdownx.arithmatex (generic mode): typeset only what arithmatex marked,
// \( \) inline and \[ \] display, as SVG (no web fonts to fetch). Loaded before MathJax
// itself, which docs/hooks/mathjax.py serves from the site.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
  svg: { fontCache: "global" },
};
