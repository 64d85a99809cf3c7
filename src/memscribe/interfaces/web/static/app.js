// memscribe web UI: progressive enhancement only; every page works without this file.
(function () {
  "use strict";
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.getAttribute("data-confirm"))) ev.preventDefault();
    });
  });
  document.querySelectorAll("a[data-back]").forEach(function (a) {
    if (window.history.length > 1) {
      a.addEventListener("click", function (ev) { ev.preventDefault(); window.history.back(); });
    }
  });
})();
