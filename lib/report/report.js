// report.js: draws the charts of a report page with Apache ECharts (embedded before this script).
// The page's data (#report-data) holds one ECharts option per chart, keyed by the id of its
// <div class="chart">; report.py writes them as JSON, so what JSON cannot hold (functions) is
// named instead and filled in here: "_format" on an axis (its labels) or on the tooltip.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);

  var thousands = barrageFormat.thousands, latency = barrageFormat.latency, signedPct = barrageFormat.signedPct;
  // x = 1 / (1 - q) on the "nines" axis: 10 -> 90%, 1000 -> 99.9%
  function nines(x) {
    if (x <= 1) return '0%';
    var q = (1 - 1 / x) * 100, digits = Math.max(0, Math.ceil(Math.log10(x)) - 2);
    return q.toFixed(Math.min(digits, 6)).replace(/\.?0+$/, function (m) { return m.indexOf('.') >= 0 ? '' : m; }) + '%';
  }
  function percentileName(x) { return 'p' + nines(x).replace('%', ''); }
  // a response size in bytes: 1 KiB ... 1 MiB (the size sweep's axis)
  function bytes(v) {
    return v >= 1048576 ? +(v / 1048576).toFixed(2) + ' MiB' : v >= 1024 ? +(v / 1024).toFixed(2) + ' KiB' : v + ' B';
  }
  var axisFormats = { nines: nines, us: latency, rps: thousands, pct: signedPct, bytes: bytes };
  var esc = barrageFormat.esc;
  function value(p) { return Array.isArray(p.value) ? p.value : (p.value && p.value.value) || p.data && p.data.value || p.value; }

  var tooltips = {
    nines_us: function (p) { var v = value(p); return esc(p.seriesName) + '<br>' + percentileName(v[0]) + ': <b>' + latency(v[1]) + '</b>'; },
    rate_us: function (p) {
      var v = value(p), why = p.data && p.data.why;
      return esc(p.seriesName) + '<br>offered ' + thousands(v[0]) + '/s: p99 <b>' + latency(v[1]) + '</b>' +
        (p.data && p.data.phase ? '<br>' + esc(p.data.phase) + (why ? ': ' + esc(why) : ': passed') : '');
    },
    rps: function (p) {
      var v = value(p);
      if (p.seriesType === 'boxplot') {
        var d = p.data.length ? p.data : v;
        return esc(p.name) + '<br>median <b>' + thousands(d[d.length - 3]) + '</b><br>interval ' + thousands(d[d.length - 4]) +
          '–' + thousands(d[d.length - 2]) + '<br>runs ' + thousands(d[d.length - 5]) + '–' + thousands(d[d.length - 1]);
      }
      return esc(v[1]) + ': <b>' + thousands(v[0]) + '</b> req/s';
    },
    pct: function (p) {
      var v = value(p);
      if (p.seriesType === 'boxplot') {
        var d = p.data.value || p.data;
        return esc(p.name) + '<br>change <b>' + signedPct(d[2]) + '</b><br>95% CI ' + signedPct(d[1]) + ' to ' + signedPct(d[3]);
      }
      return esc(v[1]) + '<br>' + esc(p.seriesName) + ' <b>' + signedPct(v[0]) + '</b>' + (p.data.verdict ? ' (' + esc(p.data.verdict) + ')' : '');
    },
    timeline: function (ps) {
      return 'second ' + ps[0].value[0] + ps.map(function (p) {
        return '<br>' + p.marker + esc(p.seriesName) + ': <b>' + (p.seriesName.slice(-4) === ' p99' ? latency(p.value[1]) : thousands(p.value[1])) + '</b>';
      }).join('');
    }
  };

  function prepareAxis(axis) {
    if (!axis || !axis._format) return;
    var f = axisFormats[axis._format];
    axis.axisLabel = Object.assign({}, axis.axisLabel, { formatter: f });
    axis.axisPointer = { label: { formatter: function (p) { return f(p.value); } } };
    delete axis._format;
  }
  function prepare(option) {
    [].concat(option.xAxis || [], option.yAxis || []).forEach(prepareAxis);
    if (option.tooltip && option.tooltip._format) {
      option.tooltip.formatter = tooltips[option.tooltip._format];
      delete option.tooltip._format;
    }
    return option;
  }

  var charts = [];
  document.querySelectorAll('div.chart').forEach(function (el) {
    var option = data.charts[el.id];
    if (!option) { console.error('report: no data for chart ' + el.id); return; }
    var chart = echarts.init(el, null, { renderer: 'canvas' });
    chart.setOption(prepare(option));
    charts.push(chart);
  });
  window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });
  document.documentElement.setAttribute('data-charts-drawn', String(charts.length));
})();
