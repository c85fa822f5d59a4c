// The table socket, kept honest: an application heartbeat (`ping` -> `pong`, see
// docs/protocol.md) notices a dead link that TCP has not noticed yet, and reconnects with
// exponential backoff and a countdown that counts, or at once on "reconnect now".

export const PING_EVERY = 5;    // seconds between pings
export const SILENCE_LIMIT = 11; // seconds without any message before the link is dead

/** Seconds before reconnect attempt `attempt` (1, 2, ...): 0.5 s doubling up to 30 s,
 *  with jitter (`random` in [0, 1)). */
export function backoff(attempt, random = Math.random()) {
  return Math.min(30, 0.5 * 2 ** Math.min(attempt, 6)) * (0.75 + random / 2);
}

/**
 * `onMessage(message)` for every message but `pong`; `onStatus({kind, seconds})` with kind
 * connecting | live | reconnecting (seconds: until the next attempt) | closed;
 * `onOpen(reconnected)` when a socket opens (`reconnected`: an earlier one was live).
 */
export class Connection {
  constructor(url, { onMessage, onStatus, onOpen }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onOpen = onOpen || (() => {});
    this.socket = null;
    this.attempts = 0;
    this.everOpened = false;
    this.lastHeard = 0;
    this.retryAt = null;
    this.timers = [];
    this.tick = setInterval(() => this.watch(), 1000);
    window.addEventListener('offline', () => this.lost());
    window.addEventListener('online', () => { if (this.retryAt !== null) this.reconnectNow(); });
  }

  connect() {
    this.retryAt = null;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    this.onStatus({ kind: 'connecting' });
    let heard = false;
    socket.addEventListener('open', () => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      this.onOpen(this.everOpened);
    });
    socket.addEventListener('message', (event) => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      if (!heard) {
        // Live only once the server is heard (it sends the state on connect), not when a
        // socket merely opens: a proxy can accept a socket the server never sees.
        heard = true;
        this.everOpened = true;
        this.attempts = 0;
        this.onStatus({ kind: 'live' });
      }
      const message = JSON.parse(event.data);
      if (message.type !== 'pong') this.onMessage(message);
    });
    socket.addEventListener('close', (event) => {
      if (socket !== this.socket) return;  // a socket already given up on
      if (event.code === 4403 || event.code === 4404) {
        this.socket = null;
        this.onStatus({ kind: 'closed' });
        return;
      }
      this.lost();
    });
  }

  /** The link is gone (closed, silent or offline): drop it and plan the next attempt. */
  lost() {
    if (this.retryAt !== null) return;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      try { socket.close(); } catch (error) { /* already closing */ }
    }
    this.attempts += 1;
    this.retryAt = Date.now() + backoff(this.attempts) * 1000;
    this.watch();
  }

  reconnectNow() {
    this.retryAt = null;
    if (this.socket) this.socket.close();
    this.socket = null;
    this.connect();
  }

  /** Once a second: ping, notice silence, count down, reconnect when the time comes. */
  watch() {
    if (this.retryAt !== null) {
      const left = Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000));
      if (left <= 0) { this.connect(); return; }
      this.onStatus({ kind: 'reconnecting', seconds: left });
      return;
    }
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const silent = (Date.now() - this.lastHeard) / 1000;
    if (silent > SILENCE_LIMIT) { this.lost(); return; }
    if (silent >= PING_EVERY && (!this.pinged || Date.now() - this.pinged >= PING_EVERY * 1000)) {
      this.pinged = Date.now();
      socket.send(JSON.stringify({ type: 'ping' }));
    }
  }

  /** Send `message` now; false when there is no open socket. */
  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN && this.retryAt === null) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }
}
