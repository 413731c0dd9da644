/**
 * The getting-started section of the OpenAPI description (issue 31 item 5):
 * credentials → offer → answer → webhook, as an integrator walks it in the
 * docs page (Swagger UI renders the Markdown above the operations). Every
 * path it names is checked against the document by
 * test/api/document/requestDocs.test.ts, so it cannot name a route that is gone.
 */
export const GETTING_STARTED = `
## Getting started: credentials → offer → answer → webhook

The bodies below are the examples "Try it out" fills in. With \`npm run demo\` or the demo data (\`config/demo.json\`)
the generator is \`aseguradora-demo\` / \`demo-secret-1\` and the central's key is \`ga-demo-key-0123456789abcdef\`.

1. **Credentials.** An operator provisions your API user (\`npm run provision -- file.json\`). A *generator*
   (an insurer) calls with HTTP Basic and receives at \`url_api\` + \`api_endpoint.respuesta\` (the acceptance, spec 6.1)
   and \`api_endpoint.estado\` (every state change, D12). A *central* calls with \`x-apikey\` and receives offers at
   \`api_endpoint.oferta\` and novelties at \`api_endpoint.novedad\`. With a \`webhookSecret\` every request we send is
   signed (D17: check it with any Standard Webhooks library).
2. **Check your receiver.** \`POST /api/v3/webhooks/test\` with \`{"tipo": "estado"}\` (or \`respuesta\`, \`oferta\`,
   \`novedad\`) sends one signed sample to your own endpoint, marked \`x-prueba: true\` and \`"prueba": true\`; the
   answer says what your receiver replied, how fast, and whether it was a 200. A 400 names the \`api_endpoint\` key
   your profile lacks.
3. **Offer** (generator). \`POST /api/v3/oferta\` with a uuid of yours, a service type from \`GET /api/v3/types\`, the
   place (coordinates or an address) and the customer's \`telefonoCliente\`. The covering centrals receive it and have
   30 seconds to answer; \`GET /api/v3/offer-responses?uuid=…\` shows the answers so far.
4. **Answer** (central). \`PUT /api/v3/aceptacion\` with the offer's \`id\`, your \`dniPrestador\`, the technician's
   \`dniTecnico\` and \`tiempoLlegadaSitio\` in minutes. Technicians may answer from their app over the socket instead
   (\`/api/v3/asyncapi.json\`).
5. **Webhook** (generator). When the window closes the best answer is chosen and sent to your
   \`api_endpoint.respuesta\`: answer 200 to take it (anything else rejects it), then confirm with
   \`POST /api/v3/asignacion\` (\`uuid\`, \`placa\`). From then on \`PUT /api/v3/estado-servicio\` (the central:
   EN_CAMINO, EN_SITIO) and \`POST /api/v3/finalize\` reach you at \`api_endpoint.estado\`, retried until you answer 2xx.
   \`GET /api/v3/webhooks/deliveries\` lists every delivery to you and each attempt.
6. **The customer** follows the service at \`/seguimiento\` with a code sent by SMS to \`telefonoCliente\`: the
   technician approaching on a map, the arrival time, a chat with the technician and, at the end, a survey.
`;
