/** The operators' login form (GET/POST /admin/login); shows only fixed texts, never user input. */
export function loginPage(action: string, error?: string): string {
  const alert = error ? `<p class="error" role="alert">${error}</p>` : '';
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Operadores · Iniciar sesión</title>
<style>
  body { font-family: system-ui, sans-serif; background: #f4f5f7; display: grid; place-items: center; min-height: 100vh; margin: 0; }
  form { background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px #0002; width: 18rem; }
  h1 { font-size: 1.2rem; margin-top: 0; }
  label { display: block; margin: .8rem 0 .3rem; }
  input { width: 100%; box-sizing: border-box; padding: .5rem; }
  button { margin-top: 1.2rem; width: 100%; padding: .6rem; }
  .error { color: #b00020; }
</style>
</head>
<body>
<form method="post" action="${action}">
  <h1>Panel de colas · operadores</h1>
  ${alert}
  <label for="username">Usuario</label>
  <input id="username" name="username" autocomplete="username" required>
  <label for="password">Contraseña</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Iniciar sesión</button>
</form>
</body>
</html>
`;
}
