// The tournament (and arena) page keeps itself current: a tournament.changed message (the
// box's data-change-type) refetches the live part; a lost socket reconnects with backoff and
// catches up.
(() => {
  const box = document.getElementById("tournament-live");
  const changed = box.dataset.changeType || "tournament.changed";
  let timer = null, delay = 1000;
  async function refresh() {
    const response = await fetch(box.dataset.liveUrl, {credentials: "same-origin"});
    if (response.ok) box.innerHTML = await response.text();
  }
  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + box.dataset.wsPath);
    socket.onopen = () => { delay = 1000; box.dataset.socket = "open"; };
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.type === changed) {
        clearTimeout(timer);
        timer = setTimeout(refresh, 250);  // several changes in one burst: one refetch
      }
    };
    socket.onclose = () => {
      box.dataset.socket = "closed";
      setTimeout(() => { refresh(); connect(); }, delay);  // catch up on what was missed
      delay = Math.min(delay * 2, 30000);
    };
  }
  connect();
})();
