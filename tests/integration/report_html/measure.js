// measure.js: appended to a copy of the report page by t_report_html.sh, run by headless
// Chromium at a given window width before --dump-dom: it writes what a person would see of the
// layout as JSON into a pre element with the id layout, for check_layout.py. Measures only; changes nothing else.
(function () {
  var doc = document.documentElement;
  var out = { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, svgs: [] };
  document.querySelectorAll('svg').forEach(function (svg) {
    var box = svg.getBoundingClientRect(), texts = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var r = t.getBoundingClientRect();
      texts.push({ text: t.textContent, cls: t.getAttribute('class') || '',
                   left: r.left - box.left, right: r.right - box.left,
                   top: r.top - box.top, bottom: r.bottom - box.top });
    });
    out.svgs.push({ id: svg.id, width: box.width, height: box.height, texts: texts });
  });
  // what sticks out past the window's right edge, for the message when the page scrolls sideways
  out.wide = [];
  document.querySelectorAll('body *').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right > doc.clientWidth + 0.5 && out.wide.length < 5 &&
        (!e.parentElement || e.parentElement.getBoundingClientRect().right <= doc.clientWidth + 0.5))
      out.wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + Math.round(r.right) + ' px');
  });
  var knee = document.getElementById('knee');
  out.knee = knee ? knee.textContent : null;
  var pre = document.createElement('pre');
  pre.id = 'layout';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
