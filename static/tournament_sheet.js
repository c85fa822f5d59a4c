// Draw sheets and score cards: the Print button (no inline handlers under the CSP).
document.getElementById("print-sheet")?.addEventListener("click", () => window.print());
