/**
 * The body of the outgoing acceptance notification (spec 6.1), including the
 * legacy variant for the one integration recognized by its central's tax id.
 */
import type { Config } from '../../../../config/index.js';
import type { Central, Technician } from '../../../db/entities/index.js';
import { nitCheckDigit } from '../../centrals/nit.js';

export interface AcceptancePayload {
  id: string;
  idGestor: string;
  dniGestor: string;
  dniPrestador: string;
  nombrePrestador: string;
  telefonoCentral: string;
  latitudTecnico: string;
  longitudTecnico: string;
  identificadorTecnico: string;
  dniTecnico: string;
  telefonoTecnico: string;
  tarifaEstimadaServicio: string;
  tiempoLlegadaSitio: number;
  [key: string]: string | number;
}

export interface AcceptanceFacts {
  offerUuid: string;
  central: Pick<Central, 'nit' | 'name' | 'phone'>;
  technician: Pick<Technician, 'dni' | 'identifier' | 'phone'>;
  techLat: number | null;
  techLng: number | null;
  timeMin: number;
}

type GestorConfig = Pick<Config, 'gestorId' | 'gestorDni' | 'legacyCentralNit' | 'legacyGestorId' | 'legacyGestorDni'>;

export function isLegacyCentral(cfg: GestorConfig, nit: string): boolean {
  return cfg.legacyCentralNit !== null && cfg.legacyCentralNit === nit;
}

export function acceptancePayload(cfg: GestorConfig, f: AcceptanceFacts): AcceptancePayload {
  const legacy = isLegacyCentral(cfg, f.central.nit);
  const identifier = f.technician.identifier ?? '';
  return {
    id: f.offerUuid,
    idGestor: legacy ? cfg.legacyGestorId : cfg.gestorId,
    dniGestor: legacy ? cfg.legacyGestorDni : cfg.gestorDni,
    dniPrestador: legacy ? `${f.central.nit}${nitCheckDigit(f.central.nit)}` : f.central.nit,
    nombrePrestador: f.central.name,
    telefonoCentral: f.central.phone ?? '',
    latitudTecnico: f.techLat === null ? '' : String(f.techLat),
    longitudTecnico: f.techLng === null ? '' : String(f.techLng),
    identificadorTecnico: legacy ? `C${identifier}` : identifier,
    dniTecnico: legacy ? `C${f.technician.dni}` : f.technician.dni,
    telefonoTecnico: f.technician.phone ?? '',
    tarifaEstimadaServicio: '0',
    tiempoLlegadaSitio: f.timeMin,
  };
}
