// history_page.js: draws the trend page's charts (lib/history_page.py) with Apache ECharts,
// embedded before this script. Per series: ok/s and p99 over time as their change from the
// series' median, on one axis every chart shares (the page's data.scale), a point per results
// file; change points as vertical lines (red: regression, green: improvement, grey: small); a
// click on a point opens that run's page. Strings from results files reach the tooltip HTML
// only through esc().
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('history-data').textContent);

  var esc = barrageFormat.esc;
  var thousands = barrageFormat.thousands, latency = barrageFormat.latency, signedPct = barrageFormat.signedPct;
  var colours = { regression: '#d62728', improvement: '#2ca02c', small: '#999999' };
  var metricName = { successful_rps: 'ok/s', p99: 'p99' };

  function option(s) {
    // the change from the series' median (s.base), on the axis all charts share (data.scale)
    function line(key) {
      var base = s.base[key];
      return s.points.filter(function (p) { return p[key] && base; }).map(function (p) {
        return { value: [Date.parse(p.t), p[key].median / base - 1], median: p[key].median, file: p.file, runs: p.runs,
                 min: p[key].min, max: p[key].max, key: key };
      });
    }
    // one line per file that starts a change (ok/s and p99 often change at the same file): its
    // label names both, its colour the worst verdict
    var byFile = {};
    s.change_points.forEach(function (c) { (byFile[c.file] = byFile[c.file] || []).push(c); });
    var marks = Object.keys(byFile).map(function (f) {
      var cs = byFile[f], verdict = ['regression', 'improvement', 'small'].filter(function (v) {
        return cs.some(function (c) { return c.verdict === v; });
      })[0];
      return { xAxis: Date.parse(cs[0].t), lineStyle: { color: colours[verdict] || '#999', type: 'solid', width: 2 },
               label: { formatter: cs.map(function (c) { return metricName[c.metric] + ' ' + signedPct(c.change); }).join(', '),
                        color: colours[verdict] || '#999' } };
    });
    return {
      animation: false,
      grid: { left: 70, right: 70, top: 40, bottom: 40 },
      legend: { top: 5 },
      tooltip: {
        trigger: 'item',
        formatter: function (p) {
          var d = p.data, f = d.file, fmtv = d.key === 'p99' ? latency : thousands;
          return esc(s.name) + '<br>#' + (f + 1) + ' ' + esc(new Date(d.value[0]).toISOString()) + '<br>' + esc(p.seriesName) +
            ': <b>' + fmtv(d.median) + '</b> (' + signedPct(d.value[1]) + ' from the median)' + (d.runs > 1 ? ' (' + d.runs + ' runs: ' + fmtv(d.min) + '–' + fmtv(d.max) + ')' : '') +
            '<br>click: the run\'s page';
        }
      },
      xAxis: { type: 'time' },
      yAxis: { type: 'value', name: "change from the series' median", min: -data.scale, max: data.scale,
               axisLabel: { formatter: signedPct } },
      series: [
        { name: 'ok/s', type: 'line', data: line('rps'), symbolSize: 7, itemStyle: { color: '#1f77b4' },
          markLine: { symbol: 'none', silent: true, data: marks } },
        { name: 'p99', type: 'line', data: line('p99'), symbolSize: 5, itemStyle: { color: '#ff7f0e' }, lineStyle: { opacity: 0.6 } }
      ]
    };
  }

  var charts = [];
  data.series.forEach(function (s) {
    var el = document.getElementById(s.id);
    if (!el) { console.error('history: no element for chart ' + s.id); return; }
    var chart = echarts.init(el, null, { renderer: 'canvas' });
    chart.setOption(option(s));
    chart.on('click', function (p) {
      if (p.data && p.data.file != null && data.links[p.data.file]) window.location.href = data.links[p.data.file];
    });
    charts.push(chart);
  });
  window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });
  document.documentElement.setAttribute('data-charts-drawn', String(charts.length));
})();
