/**
 * The operators' login form (GET/POST /admin/login): fixed texts only, never
 * user input, except `next` (already checked to be a path of this site,
 * routes/adminLogin.ts safeNext) carried in a hidden field, escaped.
 */
const esc = (v: string): string =>
  v.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function loginPage(action: string, error?: string, next?: string | null, notice?: string): string {
  const alert = error ? `<p class="error" role="alert" id="login-error">${esc(error)}</p>` : notice ? `<p class="notice" role="status">${esc(notice)}</p>` : '';
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Iniciar sesión · Consola de operadores</title>
<style>
  *, *::before, *::after { box-sizing: border-box; }
  body { font: 16px/1.45 system-ui, sans-serif; color: #1a1a1a; background: #1f2937; display: grid; place-items: center; min-height: 100vh; margin: 0; padding: 1rem; }
  main { width: 100%; max-width: 24rem; }
  .marca { color: #fff; text-align: center; margin: 0 0 1rem; font-size: 1.05rem; font-weight: 600; }
  form { background: #fff; padding: 1.6rem; border-radius: 10px; box-shadow: 0 10px 30px #0006; }
  h1 { font-size: 1.3rem; margin: 0 0 .3rem; }
  .ayuda { color: #4b5563; margin: 0 0 1rem; font-size: .92rem; }
  label { display: block; margin: 1rem 0 .3rem; font-weight: 600; }
  input { width: 100%; font: inherit; padding: .6rem .7rem; border: 2px solid #6b7280; border-radius: 6px; }
  input:focus-visible, button:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
  button { margin-top: 1.4rem; width: 100%; font: inherit; font-weight: 600; padding: .7rem; border: 0; border-radius: 6px; background: #1d4ed8; color: #fff; cursor: pointer; }
  button:hover { background: #1e40af; }
  .error { color: #991b1b; background: #fef2f2; border-left: 4px solid #991b1b; padding: .5rem .7rem; margin: .8rem 0 0; }
  .notice { color: #14532d; background: #f0fdf4; border-left: 4px solid #14532d; padding: .5rem .7rem; margin: .8rem 0 0; }
</style>
</head>
<body>
<main>
<p class="marca">Service Offer Brokering · Operadores</p>
<form method="post" action="${action}"${error ? ' aria-describedby="login-error"' : ''}>
  <h1>Iniciar sesión</h1>
  <p class="ayuda">Consola de operadores: cola de trabajo, mapa en vivo, avisos y colas de trabajos.</p>
  ${alert}
  ${next ? `<input type="hidden" name="next" value="${esc(next)}">` : ''}
  <label for="username">Usuario</label>
  <input id="username" name="username" autocomplete="username" required autofocus>
  <label for="password">Contraseña</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Entrar</button>
</form>
</main>
</body>
</html>
`;
}
