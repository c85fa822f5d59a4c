// Behaviour every page shares, kept out of the HTML so the Content Security Policy can
// forbid inline scripts: a <select data-submit-on-change> (the language menu) submits its form.
for (const select of document.querySelectorAll("select[data-submit-on-change]")) {
  select.addEventListener("change", () => select.form.submit());
}
