// An arena player is taken to their match as soon as they are paired: when the live part
// (refetched by tournament_live.js) shows a match link that was not there before.
(() => {
  const box = document.getElementById("tournament-live");
  const current = () => box.querySelector("#arena-my-table")?.dataset.tableUrl || null;
  let shown = current();
  new MutationObserver(() => {
    const now = current();
    if (now && now !== shown) location.assign(now);
    shown = now;
  }).observe(box, {childList: true, subtree: true});
})();
