/**
 * The console's script (`/admin/console/app.js`, an ES module; issue 31,
 * D23). On the home page: the live map and its table view drawn from GET
 * /api/v3/admin/mapa with the same modules the server used for the first
 * paint (/assets/console-map.js, /assets/map.js), kept current over the
 * operator socket (`technician.position` moves a technician at once;
 * `offer.states` asks the map and the work queue again), the countdowns
 * ticking, zoom and "only the table". On an offer's page: the confirmation
 * dialog before "Reenviar". Without it the pages still work (the server's
 * first paint, and a confirmation page before a resend).
 */
export const CONSOLE_SCRIPT = `import { mapView, mapSvg, mapTables, summary, countdown, ago } from '/assets/console-map.js';
import { zoomView, viewAt } from '/assets/map.js';

const zona = document.body.dataset.zona || 'America/Bogota';

/* ----- Reenviar: confirm first (the acceptance notice, sent once by the spec, asks for more) ----- */
const dialog = document.getElementById('confirmar');
if (dialog) {
  let pending = null;
  const check = document.getElementById('entiendo');
  const checkLabel = document.getElementById('confirmar-entiendo');
  document.querySelectorAll('form.reenviar').forEach((form) => {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      pending = form;
      const once = form.dataset.unaVez === 'si';
      document.getElementById('confirmar-que').textContent = form.dataset.que || '';
      document.getElementById('confirmar-texto').textContent = form.dataset.explicacion || '';
      checkLabel.hidden = !once;
      check.required = once;
      check.checked = false;
      dialog.returnValue = '';
      dialog.showModal();
    });
  });
  dialog.addEventListener('close', () => {
    // A close event is dispatched a task later: one from a cancelled dialog may arrive after the next "Reenviar" has
    // opened it again; it must not take that form away.
    if (dialog.open) return;
    const form = pending;
    pending = null;
    if (!form || dialog.returnValue !== 'reenviar') return;
    const add = (name) => {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = 'si';
      form.appendChild(input);
    };
    add('confirmado');
    if (form.dataset.unaVez === 'si' && check.checked) add('entiendo');
    form.submit();
  });
}

/* ----- the live map and the work queue ----- */
const lienzo = document.getElementById('lienzo');
if (lienzo) {
  let data = null;
  let view = null;
  let manual = false;
  let drawQueued = false;
  let tablesTimer = null;
  const live = document.getElementById('en-vivo');
  const resumen = document.getElementById('mapa-resumen');

  const size = () => {
    const width = Math.max(280, Math.round(lienzo.clientWidth || 800));
    return { width, height: Math.round(Math.min(560, Math.max(300, width * 0.62))) };
  };
  const draw = () => {
    drawQueued = false;
    if (!data) return;
    const s = size();
    view = manual && view ? viewAt(view.center, view.metersPerPixel, s) : mapView(data, s, view);
    const old = document.getElementById('mapa');
    if (old) old.outerHTML = mapSvg(data, view, Date.now());
    const text = summary(data);
    if (resumen.textContent !== text) resumen.textContent = text;
    document.body.dataset.dibujado = String(Date.now());
  };
  const queueDraw = () => {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(draw);
  };
  const drawTables = () => {
    tablesTimer = null;
    if (!data) return;
    const box = document.getElementById('datos-mapa');
    const top = box.scrollTop;
    box.innerHTML = mapTables(data, Date.now(), zona);
    box.scrollTop = top;
  };
  const queueTables = () => {
    if (!tablesTimer) tablesTimer = setTimeout(drawTables, 1000);
  };

  const toLogin = () => (location.href = '/admin/login?next=' + encodeURIComponent(location.pathname + location.search));
  let loading = null;
  const load = () => {
    if (loading) return loading;
    loading = fetch('/api/v3/admin/mapa', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then((r) => {
        if (r.status === 401) return toLogin();
        return r.ok ? r.json().then((j) => {
          data = j.data;
          queueDraw();
          drawTables();
        }) : null;
      })
      .catch(() => {})
      .finally(() => (loading = null));
    return loading;
  };
  const loadQueue = () =>
    fetch('/admin/console/cola', { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then((r) => (r.ok ? r.text() : null))
      .then((html) => {
        if (!html) return;
        const fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('cola');
        const old = document.getElementById('cola');
        if (!fresh || !old) return;
        const focused = old.contains(document.activeElement) ? document.activeElement.id || null : null;
        old.replaceWith(fresh);
        if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
      })
      .catch(() => {});
  let changeTimer = null;
  const changed = () => {
    if (changeTimer) return;
    changeTimer = setTimeout(() => {
      changeTimer = null;
      load();
      loadQueue();
    }, 400);
  };

  const onPosition = (p) => {
    document.querySelectorAll('[data-tec-pos="' + Number(p.tecnicoId) + '"]').forEach((el) => {
      el.textContent = p.latitud.toFixed(5) + ', ' + p.longitud.toFixed(5);
      const age = el.nextElementSibling;
      if (age && age.hasAttribute('data-desde')) {
        age.setAttribute('data-desde', p.fecha);
        age.textContent = ago(p.fecha, Date.now());
      }
    });
    if (!data) return;
    const t = data.tecnicos.find((x) => x.id === p.tecnicoId);
    if (!t) return changed(); // not on the map yet: ask again
    t.latitud = p.latitud;
    t.longitud = p.longitud;
    t.fecha = p.fecha;
    t.estado = p.estado;
    queueDraw();
    queueTables();
  };

  let delay = 1000;
  const setLive = (on, text) => {
    live.dataset.estado = on ? 'si' : 'no';
    live.textContent = text;
  };
  const connect = () =>
    fetch('/api/v3/admin/socket-token', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then((r) => {
        if (r.status === 401) return toLogin();
        if (!r.ok) throw new Error('token');
        return r.json();
      })
      .then((j) => {
        if (!j) return;
        const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v3?token=' + encodeURIComponent(j.data.token));
        ws.onopen = () => {
          delay = 1000;
          setLive(true, 'En vivo');
          load();
        };
        ws.onmessage = (ev) => {
          let msg;
          try {
            msg = JSON.parse(ev.data);
          } catch (e) {
            return;
          }
          if (msg.event === 'technician.position') onPosition(msg.data);
          else if (msg.event === 'offer.states') changed();
        };
        ws.onclose = () => retry();
      })
      .catch(() => retry());
  const retry = () => {
    setLive(false, 'Sin conexión en vivo; reintentando…');
    setTimeout(connect, delay);
    delay = Math.min(delay * 2, 30000);
  };

  // the countdowns every second, the ages every five; everything again every minute in case an event was lost
  setInterval(() => {
    const now = Date.now();
    document.querySelectorAll('[data-cierre]').forEach((el) => {
      const target = el.tagName.toLowerCase() === 'g' ? el.querySelector('text') : el;
      if (target) target.textContent = countdown(el.dataset.cierre || el.getAttribute('data-cierre'), now);
    });
  }, 1000);
  setInterval(() => {
    const now = Date.now();
    document.querySelectorAll('[data-desde]').forEach((el) => (el.textContent = ago(el.getAttribute('data-desde'), now)));
  }, 5000);
  setInterval(() => {
    load();
    loadQueue();
  }, 60000);

  const toggle = document.getElementById('ver-tabla');
  toggle.addEventListener('click', () => {
    const on = toggle.getAttribute('aria-pressed') !== 'true';
    toggle.setAttribute('aria-pressed', String(on));
    document.getElementById('mapa-cuerpo').classList.toggle('solo-tabla', on);
    if (on) document.getElementById('datos-mapa').focus();
    else queueDraw();
  });
  document.getElementById('acercar').addEventListener('click', () => {
    if (!view) return;
    manual = true;
    view = zoomView(view, -1);
    queueDraw();
  });
  document.getElementById('alejar').addEventListener('click', () => {
    if (!view) return;
    manual = true;
    view = zoomView(view, 1);
    queueDraw();
  });
  document.getElementById('ajustar').addEventListener('click', () => {
    manual = false;
    view = null;
    queueDraw();
  });
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(queueDraw, 150);
  });

  load();
  connect();
}
`;
