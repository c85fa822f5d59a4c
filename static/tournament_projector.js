// The projector: one slide (a bracket, or the standings) at a time, scaled to fill the
// screen, the next every few seconds, kept current over the tournament's socket.
(() => {
  const stage = document.getElementById("stage");
  const seconds = Math.max(3, Number(stage.dataset.seconds) || 15);
  let index = 0, timer = null, refetch = null, delay = 1000;
  function slides() { return Array.from(stage.querySelectorAll(".slide")); }
  function fit(slide) {
    slide.style.transform = "none";
    // the stage leaves the bottom strip to the caption and the buttons
    const scale = Math.min(stage.clientWidth / slide.scrollWidth, stage.clientHeight / slide.scrollHeight);
    slide.style.transform = `scale(${scale})`;
    slide.dataset.scale = String(scale);
  }
  function show(next) {
    const all = slides();
    if (!all.length) return;
    index = ((next % all.length) + all.length) % all.length;
    all.forEach((slide, i) => slide.classList.toggle("current", i === index));
    fit(all[index]);
  }
  function cycle() { clearInterval(timer); timer = setInterval(() => show(index + 1), seconds * 1000); }
  async function refresh() {
    const response = await fetch(stage.dataset.liveUrl, {credentials: "same-origin"});
    if (response.ok) { stage.innerHTML = await response.text(); show(index); }
  }
  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + stage.dataset.wsPath);
    socket.onopen = () => { delay = 1000; };
    socket.onmessage = (message) => {
      if (JSON.parse(message.data).type === "tournament.changed") {
        clearTimeout(refetch); refetch = setTimeout(refresh, 250);
      }
    };
    socket.onclose = () => { setTimeout(() => { refresh(); connect(); }, delay); delay = Math.min(delay * 2, 30000); };
  }
  window.addEventListener("resize", () => show(index));
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight" || event.key === " ") { show(index + 1); cycle(); }
    if (event.key === "ArrowLeft") { show(index - 1); cycle(); }
  });
  document.getElementById("fullscreen").addEventListener("click", () => document.documentElement.requestFullscreen?.());
  show(0); cycle(); connect();
})();
