/**
 * POST /queries/history (D7): the caller's own services of one business
 * line, newest first, filtered by reference (uuid, internal or global
 * identifier), state and creation dates (local days, LOCAL_UTC_OFFSET, or
 * exact instants), one page at a time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { BusinessLine, Offer } from '../../db/entities/index.js';
import { DomainError } from '../errors.js';
import { offsetOfPage } from '../paging.js';
import { isUuid } from '../offers/lifecycle/ownership.js';
import type { OfferState } from '../offers/lifecycle/states.js';

export const DEFAULT_PAGE_SIZE = 50;
/** Highest page number, so that (page - 1) * pageSize stays an exact bigint offset. */
export const MAX_PAGE = 1_000_000;
export const MAX_PAGE_SIZE = 500;

export interface HistoryFilters {
  line: string;
  autNumber?: string | number;
  estado?: OfferState;
  desde?: string;
  hasta?: string;
  page?: number;
  pageSize?: number;
}

export interface HistoryRecord {
  idServicio: string;
  estado: OfferState;
  prestador: string | null;
  nitPrestador: string | null;
  tipoServicio: string;
  codigoServicio: string | null;
  codigoSolicitud: string | null;
  internal: number | null;
  global: number | null;
  fecha: string;
  fechaActualizacion: string;
}

export interface HistoryPage {
  records: HistoryRecord[];
  pagination: { page: number; pageSize: number; total: number };
}

const DAY_MS = 86_400_000;

const isDate = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);
const localDayStart = (value: string, offset: string) => new Date(`${value}T00:00:00${offset}`);

/** `desde`: from that local day's start, or from that instant. */
function since(value: string, offset: string): FilterQuery<Offer> {
  return { createdAt: { $gte: isDate(value) ? localDayStart(value, offset) : new Date(value) } };
}

/** `hasta`: through that whole local day, or up to and including that instant. */
function until(value: string, offset: string): FilterQuery<Offer> {
  if (isDate(value)) return { createdAt: { $lt: new Date(localDayStart(value, offset).getTime() + DAY_MS) } };
  return { createdAt: { $lte: new Date(value) } };
}

function reference(autNumber: string | number): FilterQuery<Offer> {
  const ref = String(autNumber).trim();
  if (isUuid(ref)) return { uuid: ref.toLowerCase() };
  if (/^\d{1,18}$/.test(ref)) return { $or: [{ internal: Number(ref) }, { global: Number(ref) }] };
  return { uuid: null };
}

export async function queryHistory(em: EntityManager, generatorId: number, f: HistoryFilters, utcOffset: string): Promise<HistoryPage> {
  const page = f.page ?? 1;
  const pageSize = f.pageSize ?? DEFAULT_PAGE_SIZE;
  const offset = offsetOfPage(page, pageSize); // LIM-6: a page too deep is refused before any query
  if (!(await em.count(BusinessLine, { code: f.line }))) throw new DomainError('history.line-unknown', { line: f.line });
  const where: FilterQuery<Offer>[] = [{ generator: generatorId, serviceType: { line: f.line } }];
  if (f.autNumber !== undefined && String(f.autNumber).trim() !== '') where.push(reference(f.autNumber));
  if (f.estado) where.push({ state: f.estado });
  if (f.desde) where.push(since(f.desde, utcOffset));
  if (f.hasta) where.push(until(f.hasta, utcOffset));
  const [rows, total] = await em.findAndCount(
    Offer,
    { $and: where },
    {
      populate: ['serviceType', 'assignedCentral'],
      orderBy: { createdAt: 'desc', uuid: 'asc' },
      limit: pageSize,
      offset,
    },
  );
  return {
    records: rows.map((o) => ({
      idServicio: o.uuid,
      estado: o.state,
      prestador: o.assignedCentral?.name ?? null,
      nitPrestador: o.assignedCentral?.nit ?? null,
      tipoServicio: o.serviceType.type,
      codigoServicio: o.codigoServicio ?? null,
      codigoSolicitud: o.codigoSolicitud ?? null,
      internal: o.internal ?? null,
      global: o.global ?? null,
      fecha: o.createdAt.toISOString(),
      fechaActualizacion: o.updatedAt.toISOString(),
    })),
    pagination: { page, pageSize, total },
  };
}
