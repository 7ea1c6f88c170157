// A minimal deck: one 16:9 slide at a time; arrows, Page Up/Down, Space and the buttons move.
// The slide number is kept in the address (#3), so a reload stays on the same slide.
// On a slide whose iframe has data-steps, "next" first walks the embedded explorer through its
// five steps with postMessage (README, "Slide control"), then moves on.
// Each embed announces itself with a "ready" message; the deck then asks it to forward the
// navigation keys pressed inside it (forwardKeys), so the arrows keep moving the deck after a click
// in a panel. ?widget=https://widget.example/ loads the embedded panels from another origin (where
// embed.html and build/ are served); by default they come from ../web/ next to this deck.
(function deck() {
  const slides = Array.from(document.querySelectorAll('.slide'));
  const counter = document.querySelector('.counter');
  document.documentElement.classList.add('js');
  const STEPS = 5;
  const stepOf = new Map(); // iframe -> the step it shows, as far as the deck knows
  let current = 0;
  let requestId = 0;

  const frames = Array.from(document.querySelectorAll('.slide iframe'));
  const widget = new URLSearchParams(location.search).get('widget');
  let widgetBase = null;
  try {
    widgetBase = widget ? new URL(widget) : null;
  } catch {
    widgetBase = null;
  }
  if (widgetBase && !/^https?:$/.test(widgetBase.protocol)) widgetBase = null;
  frames.forEach((frame) => {
    const url = new URL(frame.dataset.embed, widgetBase ?? new URL('../web/', location.href));
    // The embed then takes messages only from this deck (a deck opened from disk has no origin).
    if (/^https?:$/.test(location.protocol)) url.searchParams.set('origins', location.origin);
    frame.src = url.href;
  });

  // Pages opened from disk have opaque origins that cannot be named: only then the target is "*".
  const frameOrigin = (frame) => {
    const url = new URL(frame.src);
    return /^https?:$/.test(url.protocol) ? url.origin : '*';
  };

  function send(frame, method, params) {
    requestId += 1;
    frame.contentWindow.postMessage({ headwise: 1, id: `deck-${requestId}`, method, params }, frameOrigin(frame));
  }

  function updateCounter() {
    const frame = slides[current].querySelector('iframe[data-steps]');
    const stepNote = frame ? `, step ${(stepOf.get(frame) ?? 0) + 1} of ${STEPS}` : '';
    counter.textContent = `${current + 1} / ${slides.length}${stepNote}`;
  }

  function show(index) {
    current = Math.max(0, Math.min(slides.length - 1, index));
    slides.forEach((slide, i) => slide.classList.toggle('current', i === current));
    updateCounter();
    if (location.hash !== `#${current + 1}`) history.replaceState(null, '', `#${current + 1}`);
  }

  function move(delta) {
    const frame = slides[current].querySelector('iframe[data-steps]');
    const step = frame ? (stepOf.get(frame) ?? 0) : 0;
    if (frame && step + delta >= 0 && step + delta < STEPS) {
      stepOf.set(frame, step + delta);
      send(frame, delta > 0 ? 'nextStep' : 'previousStep');
      updateCounter();
      return;
    }
    show(current + delta);
  }

  // A deck key, pressed in the deck or forwarded by an embed: true when it moved the deck.
  function onDeckKey(key) {
    if (['ArrowRight', 'PageDown', ' '].includes(key)) move(1);
    else if (['ArrowLeft', 'PageUp'].includes(key)) move(-1);
    else return false;
    return true;
  }

  // Replies carry the explorer's state: keep the deck's idea of the step in line with it. Events:
  // 'ready' (the embed has drawn: ask it for its keys) and 'key' (a key pressed inside it).
  window.addEventListener('message', (event) => {
    const frame = frames.find((f) => f.contentWindow === event.source);
    if (!frame || event.origin !== new URL(frame.src).origin) return;
    const data = event.data;
    if (data?.headwise !== 1) return;
    if (data.event === 'ready') {
      frame.dataset.ready = 'true';
      send(frame, 'forwardKeys', { on: true });
      return;
    }
    if (data.event === 'key') {
      if (frame.closest('.slide') === slides[current]) onDeckKey(data.key);
      return;
    }
    if (!data.ok || !Number.isInteger(data.result?.step)) return;
    stepOf.set(frame, data.result.step);
    updateCounter();
  });

  document.addEventListener('keydown', (event) => {
    if (event.target.closest && event.target.closest('input, textarea, select')) return;
    if (onDeckKey(event.key)) event.preventDefault();
  });
  document.querySelectorAll('[data-go]').forEach((button) => {
    button.addEventListener('click', () => move(Number(button.dataset.go)));
  });
  show((parseInt(location.hash.slice(1), 10) || 1) - 1);
})();
