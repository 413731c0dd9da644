/**
 * The provisioning document (../../shared/contracts/provisioning.md): its
 * TypeScript shape, mirroring config/provision.schema.json, and where the
 * project's files live at run time.
 */
import { fileURLToPath } from 'node:url';
import type { Coverage } from '../geo/store.js';

/** config/ at the project root (this file runs from dist/src/provisioning). */
export const CONFIG_DIR = fileURLToPath(new URL('../../../config/', import.meta.url));
export const SCHEMA_PATH = `${CONFIG_DIR}provision.schema.json`;
export const DEMO_PATH = `${CONFIG_DIR}demo.json`;

export interface Point {
  lat: number;
  lng: number;
}

export interface BusinessLineDoc {
  code: string;
  name: string;
}

export interface ServiceTypeDoc {
  id: number;
  type: string;
  required_origin: boolean;
  required_destination: boolean;
  line?: string;
}

export interface ApiUserDoc {
  username: string;
  password?: string;
  passwordSha256?: string;
  status: 'ACTIVO' | 'INACTIVO';
  endpoints: string[];
  businessName: string;
  nit?: string;
  apiKey?: string;
  urlApi?: string;
  apiEndpoint?: Record<string, string>;
  webhookSecret?: string;
  /** the x-apikey our webhooks to this profile carry (D24: its own secret) */
  outboundKey?: string;
  helpLine?: string;
  requiresPaymentConfirmation?: boolean;
  /** D24: offers per minute (POST /oferta, /asignacion-directa); absent: QUOTA_OFFERS_PER_MIN */
  offersPerMinute?: number;
}

export interface CentralDoc {
  nit: string;
  name: string;
  phone?: string;
  apiUser?: string;
  serviceTypes: number[];
  coverage: Coverage;
}

export interface TechnicianDoc {
  dni: string;
  central: string;
  names: string;
  phone?: string;
  identifier?: string;
  rate?: number;
  available?: boolean;
  position?: Point;
  serviceTypes?: number[];
  /** default ACTIVO; INACTIVO: no offers, its tokens refused (D20) */
  status?: 'ACTIVO' | 'INACTIVO';
}

export interface OperatorDoc {
  username: string;
  password: string;
  role?: 'admin' | 'operator';
}

export interface GazetteerDoc {
  address: string;
  lat: number;
  lng: number;
  ciudad?: string;
  departamento?: string;
}

/** A document that passed the schema (config/provision.schema.json). */
export interface ProvisionDocument {
  businessLines?: BusinessLineDoc[];
  serviceTypes?: ServiceTypeDoc[];
  apiUsers?: ApiUserDoc[];
  centrals?: CentralDoc[];
  technicians?: TechnicianDoc[];
  operators?: OperatorDoc[];
  gazetteer?: GazetteerDoc[];
}

export const SECTIONS = [
  'businessLines',
  'serviceTypes',
  'apiUsers',
  'centrals',
  'technicians',
  'operators',
  'gazetteer',
] as const;
export type Section = (typeof SECTIONS)[number];

export interface SectionCounts {
  created: number;
  updated: number;
  unchanged: number;
}
export type ProvisionSummary = Record<Section, SectionCounts>;
