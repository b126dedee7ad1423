// format.js: the number formats and HTML escaping the report page (report.js) and the trend page
// (history_page.js) share; embedded before either script, it defines one global, barrageFormat.
var barrageFormat = (function () {
  'use strict';
  function thousands(v) { return v == null ? '–' : Math.round(v).toLocaleString('en-US'); }
  function latency(us) {
    if (us == null) return '–';
    if (us < 1000) return Math.round(us) + ' µs';
    if (us < 10000) return (us / 1000).toFixed(2) + ' ms';
    if (us < 100000) return (us / 1000).toFixed(1) + ' ms';
    if (us < 1000000) return (us / 1000).toFixed(0) + ' ms';
    return (us / 1000000).toFixed(2) + ' s';
  }
  function signedPct(x) { return x == null ? '–' : (x > 0 ? '+' : '') + (x * 100).toFixed(1) + '%'; }
  var entities = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return entities[c]; }); }
  return { thousands: thousands, latency: latency, signedPct: signedPct, esc: esc };
})();
