// Dragging a checker with the mouse or a finger (pointer events). A press that does not
// move more than a few pixels is left to the click handler: click-to-move works beside it.

const THRESHOLD = 6;  // CSS pixels before a press becomes a drag

/** Board coordinates of a pointer event: those of the group the board is drawn in, whatever
 *  the group's turn on the screen. */
function toBoard(group, event) {
  const matrix = group.getScreenCTM();
  if (!matrix) return { x: 0, y: 0 };
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
  return { x: point.x, y: point.y };
}

/**
 * Presses on `svg` start drags; positions are read in `group`'s coordinates.
 * `handlers.canStart(target)` -> the point to drag from, or null; `start(from)` -> the ghost
 * element to move; `drop(from, x, y)` with board coordinates; `cancel()`.
 * Returns a function that detaches the listeners.
 */
export function attachDrag(svg, group, handlers) {
  let press = null;  // {id, from, x0, y0, ghost}

  function move(event) {
    if (!press || event.pointerId !== press.id) return;
    if (!press.ghost) {
      if (Math.hypot(event.clientX - press.x0, event.clientY - press.y0) < THRESHOLD) return;
      press.ghost = handlers.start(press.from);
    }
    const { x, y } = toBoard(group, event);
    press.ghost.setAttribute('cx', x);
    press.ghost.setAttribute('cy', y);
    event.preventDefault();
  }

  function up(event) {
    if (!press || event.pointerId !== press.id) return;
    const { from, ghost } = press;
    press = null;
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    window.removeEventListener('pointercancel', cancel);
    if (!ghost) return;  // a click or a tap: the click handler takes it
    const { x, y } = toBoard(group, event);
    handlers.drop(from, x, y);
  }

  function cancel(event) {
    if (!press || event.pointerId !== press.id) return;
    const dragged = !!press.ghost;
    press = null;
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    window.removeEventListener('pointercancel', cancel);
    if (dragged) handlers.cancel();
  }

  function down(event) {
    if (press || (event.pointerType === 'mouse' && event.button !== 0)) return;
    const from = handlers.canStart(event.target);
    if (from === null) return;
    press = { id: event.pointerId, from, x0: event.clientX, y0: event.clientY, ghost: null };
    window.addEventListener('pointermove', move, { passive: false });
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', cancel);
  }

  svg.addEventListener('pointerdown', down);
  return () => {
    svg.removeEventListener('pointerdown', down);
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    window.removeEventListener('pointercancel', cancel);
  };
}
