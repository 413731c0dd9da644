/**
 * The customer page's script (`/seguimiento/app.js`): live updates over the
 * customer's socket (`/v3`, authenticated by the page's httpOnly cookie, so no
 * token is readable by scripts), the chat sent without reloading, and what a
 * screen reader is told: a new message from the technician, a new state, the
 * survey once offered (one persistent live region, #anuncios, since the parts
 * themselves are replaced). The arrival's "en N min" and the position's
 * "hace N min" move with the clock between updates. Without it the page still
 * works with plain forms.
 */
export const TRACKING_SCRIPT = `'use strict';
(function () {
  var ids = ['estado', 'historial', 'mensajes', 'encuesta'];
  var STALE_MS = 2 * 60 * 1000;
  var unseen = 0;
  function announce(text) {
    var region = document.getElementById('anuncios');
    if (!region) return;
    region.textContent = '';
    setTimeout(function () { region.textContent = text; }, 50);
  }
  function technicianIds(root) {
    var out = [];
    var items = root ? root.querySelectorAll('li.tecnico') : [];
    for (var i = 0; i < items.length; i++) out.push(items[i].getAttribute('data-id'));
    return out;
  }
  function badge() {
    var b = document.getElementById('chat-nuevos');
    if (!b) return;
    if (unseen > 0) { b.className = 'nuevos'; b.textContent = unseen + (unseen === 1 ? ' nuevo' : ' nuevos'); }
    else { b.className = ''; b.textContent = ''; }
  }
  function tick() {
    var now = Date.now();
    var els = document.querySelectorAll('[data-llegada]');
    for (var i = 0; i < els.length; i++) {
      var min = Math.ceil((Date.parse(els[i].getAttribute('data-llegada')) - now) / 60000);
      els[i].textContent = '(' + (min <= 0 ? 'debería estar llegando' : min < 60 ? 'en ' + min + ' min' : 'en ' + Math.floor(min / 60) + ' h ' + (min % 60) + ' min') + ')';
    }
    var pos = document.querySelectorAll('[data-posicion]');
    for (var j = 0; j < pos.length; j++) {
      var age = now - Date.parse(pos[j].getAttribute('data-posicion'));
      var ago = pos[j].querySelector('.hace');
      if (ago) ago.textContent = 'hace ' + Math.max(0, Math.floor(age / 60000)) + ' min';
      if (age > STALE_MS) pos[j].removeAttribute('hidden');
    }
  }
  function refresh() {
    return fetch('/seguimiento/parcial', { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (r) { if (r.status === 401) { location.href = '/seguimiento'; return null; } return r.text(); })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString('<div>' + html + '</div>', 'text/html');
        var before = technicianIds(document.getElementById('mensajes'));
        var oldState = document.querySelector('#estado .state');
        var oldStateText = oldState ? oldState.textContent : '';
        var hadSurvey = !!document.querySelector('#encuesta form');
        ids.forEach(function (id) {
          var fresh = doc.getElementById(id);
          var old = document.getElementById(id);
          if (fresh && old) old.replaceWith(fresh);
        });
        var list = document.getElementById('mensajes');
        var fresh = technicianIds(list).filter(function (id) { return before.indexOf(id) < 0; });
        var said = [];
        if (fresh.length) {
          var last = list.querySelector('li.tecnico[data-id="' + fresh[fresh.length - 1] + '"]');
          var text = last ? last.lastChild.textContent : '';
          said.push(fresh.length === 1 ? 'Nuevo mensaje del técnico: ' + text : fresh.length + ' mensajes nuevos del técnico. El último: ' + text);
          unseen += fresh.length;
          badge();
        }
        var state = document.querySelector('#estado .state');
        if (state && state.textContent !== oldStateText) said.push('Estado: ' + state.textContent);
        if (!hadSurvey && document.querySelector('#encuesta form')) said.push('Puede calificar el servicio al comienzo de la página.');
        if (said.length) announce(said.join('. '));
        if (list) list.scrollTop = list.scrollHeight;
        tick();
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
  var chat = document.getElementById('chat');
  if (chat) {
    chat.addEventListener('focusin', function () { unseen = 0; badge(); });
    chat.addEventListener('click', function () { unseen = 0; badge(); });
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
  tick();
  setInterval(tick, 15000);
  connect();
})();
`;
