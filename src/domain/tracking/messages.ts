/** The SMS text (D16). */
export const codeSmsText = (code: string): string => `Tu código de seguimiento es ${code}`;
