/**
 * The status page's script, served as /ui/page.js: every second it fetches
 * the fragment the server renders (ui/fragment) and swaps it in when it
 * differs, so the page follows serve without a reload and without a second
 * renderer in the browser. When serve does not answer, it says so and keeps
 * the last state on screen.
 */
export const PAGE_SCRIPT = `'use strict';
(function () {
  var main = document.getElementById('status');
  var live = document.getElementById('live');
  var last = null;
  function refresh() {
    fetch('ui/fragment', { cache: 'no-store' })
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.text();
      })
      .then(function (html) {
        if (html !== last) {
          main.innerHTML = html;
          last = html;
        }
        live.textContent = 'refreshing every second';
        live.className = 'dim';
      })
      .catch(function (err) {
        live.textContent = 'serve does not answer (' + err.message + '); showing the last state';
        live.className = 'bad';
      })
      .finally(function () {
        setTimeout(refresh, 1000);
      });
  }
  refresh();
})();
`;
