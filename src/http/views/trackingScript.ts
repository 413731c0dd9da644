/**
 * The customer page's script (`/seguimiento/app.js`): live updates over the
 * customer's socket (`/v3`, authenticated by the page's httpOnly cookie, so no
 * token is readable by scripts), and the chat sent without reloading. Without
 * it the page still works with plain forms.
 */
export const TRACKING_SCRIPT = `'use strict';
(function () {
  var ids = ['estado', 'mensajes', 'encuesta'];
  function refresh() {
    return fetch('/seguimiento/parcial', { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (r) { if (r.status === 401) { location.href = '/seguimiento'; return null; } return r.text(); })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString('<div>' + html + '</div>', 'text/html');
        ids.forEach(function (id) {
          var fresh = doc.getElementById(id);
          var old = document.getElementById(id);
          if (fresh && old) old.replaceWith(fresh);
        });
        var list = document.getElementById('mensajes');
        if (list) list.scrollTop = list.scrollHeight;
        document.body.setAttribute('data-actualizado', String(Date.now()));
      })
      .catch(function () {});
  }
  var delay = 1000;
  function connect() {
    var ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v3');
    ws.onopen = function () { delay = 1000; document.body.setAttribute('data-en-vivo', 'si'); };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (['offer.state', 'service.position', 'chat.message', 'chat.read'].indexOf(msg.event) >= 0) refresh();
    };
    ws.onclose = function () {
      document.body.setAttribute('data-en-vivo', 'no');
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }
  var form = document.getElementById('chat-form');
  if (form) {
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var text = form.querySelector('textarea');
      if (!text.value.trim()) return;
      var body = new URLSearchParams(new FormData(form));
      fetch(form.action, { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (r) { if (r.ok) { text.value = ''; text.focus(); } return refresh(); });
    });
  }
  var list = document.getElementById('mensajes');
  if (list) list.scrollTop = list.scrollHeight;
  connect();
})();
`;
