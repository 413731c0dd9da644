import type { EntityManager } from '@mikro-orm/postgresql';
import { ServiceType } from '../../db/entities/index.js';

/** Shape 2.4 of the spec. */
export interface ServiceTypeView {
  id: number;
  type: string;
  required_origin: boolean;
  required_destination: boolean;
}

export async function listServiceTypes(em: EntityManager): Promise<ServiceTypeView[]> {
  const rows = await em.find(ServiceType, {}, { orderBy: { id: 'asc' } });
  return rows.map((t) => ({
    id: t.id,
    type: t.type,
    required_origin: t.requiredOrigin,
    required_destination: t.requiredDestination,
  }));
}
