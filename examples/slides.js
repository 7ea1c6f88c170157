// A minimal deck: one 16:9 slide at a time; arrows, Page Up/Down, Space and the buttons move.
// The slide number is kept in the address (#3), so a reload stays on the same slide.
(function deck() {
  const slides = Array.from(document.querySelectorAll('.slide'));
  const counter = document.querySelector('.counter');
  document.documentElement.classList.add('js');
  let current = 0;

  function show(index) {
    current = Math.max(0, Math.min(slides.length - 1, index));
    slides.forEach((slide, i) => slide.classList.toggle('current', i === current));
    counter.textContent = `${current + 1} / ${slides.length}`;
    if (location.hash !== `#${current + 1}`) history.replaceState(null, '', `#${current + 1}`);
  }

  document.addEventListener('keydown', (event) => {
    if (event.target.closest && event.target.closest('input, textarea, select')) return;
    if (['ArrowRight', 'PageDown', ' '].includes(event.key)) { event.preventDefault(); show(current + 1); }
    if (['ArrowLeft', 'PageUp'].includes(event.key)) { event.preventDefault(); show(current - 1); }
  });
  document.querySelectorAll('[data-go]').forEach((button) => {
    button.addEventListener('click', () => show(current + Number(button.dataset.go)));
  });
  show((parseInt(location.hash.slice(1), 10) || 1) - 1);
}());
