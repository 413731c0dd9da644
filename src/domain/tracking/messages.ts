/** The texts of tracking and chat (D14), Spanish, upper case like the spec's controller messages. */
export const TRACKING_MESSAGES = {
  notFound: 'EXPEDIENTE NO ENCONTRADO',
  codeRequested: 'SI LOS DATOS CORRESPONDEN A UN SERVICIO, RECIBIRÁ UN CÓDIGO POR SMS EN EL TELÉFONO REGISTRADO',
  tooManyCodes: 'SE HAN SOLICITADO DEMASIADOS CÓDIGOS PARA ESTE EXPEDIENTE; INTENTE DE NUEVO EN 10 MINUTOS',
  tooManyAttempts: 'DEMASIADAS SOLICITUDES DE SEGUIMIENTO DESDE ESTA CONEXIÓN; INTENTE DE NUEVO MÁS TARDE',
  codeInvalid: 'EL CÓDIGO NO ES VÁLIDO O YA EXPIRÓ; SOLICITE UNO NUEVO',
  tracked: 'SEGUIMIENTO DEL SERVICIO',
  tokenInvalid: 'EL TOKEN DE SEGUIMIENTO NO ES VÁLIDO O YA EXPIRÓ',
  surveyNotFinished: (state: string) => `LA ENCUESTA SE PUEDE RESPONDER CUANDO EL SERVICIO ESTÉ FINALIZADO (ESTADO ACTUAL: ${state})`,
  surveyTwice: 'LA ENCUESTA DE ESTE SERVICIO YA FUE RESPONDIDA',
  surveyThanks: 'GRACIAS POR RESPONDER LA ENCUESTA',
  chatNotAssigned: (state: string) => `EL CHAT SE ABRE CUANDO EL SERVICIO ESTÁ ASIGNADO (ESTADO ACTUAL: ${state})`,
  chatEnded: 'EL CHAT DE ESTE SERVICIO ESTÁ CERRADO: TERMINÓ HACE MÁS DE 24 HORAS',
  chatReadOnly: 'EL GENERADOR Y LOS OPERADORES SOLO PUEDEN LEER ESTE CHAT',
  chatTooMany: 'SE ENVIARON DEMASIADOS MENSAJES; ESPERE UN MINUTO',
  chatUnknownMessage: (id: string) => `EL MENSAJE ${id} NO EXISTE EN ESTE CHAT`,
  chatSent: 'MENSAJE ENVIADO',
  chatHistory: 'MENSAJES DEL CHAT',
  chatRead: 'MENSAJES MARCADOS COMO LEÍDOS',
  chatUnread: 'MENSAJES NO LEÍDOS',
  chatStats: 'ESTADÍSTICAS DEL CHAT',
} as const;

/** The SMS text (D16). */
export const codeSmsText = (code: string): string => `Tu código de seguimiento es ${code}`;
