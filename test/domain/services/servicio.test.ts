import { expect } from 'chai';
import { servicio, type ServicioSource } from '../../../src/domain/services/servicio.js';

const offer = (over: Partial<ServicioSource> = {}): ServicioSource => ({
  uuid: '0b8f6f7e-3c1a-4d2b-9e5f-1a2b3c4d5e6f',
  codigoServicio: 'SV-7K3M9Q',
  descripcionServicio: 'Grúa para vehículo varado',
  direccionOrigen: 'Calle 10 # 20-30',
  originLat: 4.65,
  originLng: -74.05,
  puntoReferenciaOrigen: 'Frente al parque',
  direccionDestino: null,
  destLat: null,
  destLng: null,
  puntoReferenciaDestino: null,
  ciudad: 'Bogotá',
  departamento: 'Cundinamarca',
  fechaCita: null,
  horaCita: null,
  vehiculo: { marca: 'Renault', modelo: '2019' },
  observaciones: null,
  priority: true,
  stops: [{ direccion: 'Cra 7', latitud: 4.6, longitud: -74.07, puntoReferencia: null, ciudad: null, departamento: null, addedAt: '2026-11-28T06:00:00Z' }],
  serviceType: { id: 3, type: 'Grúa' },
  ...over,
});

describe('servicio (D20)', () => {
  it('carries what the crew needs: type and name, places, appointment (empty: immediate), vehicle, guardian, stops, technician', () => {
    const s = servicio(offer(), { dni: '1020', names: 'Ana Pérez' });
    expect(s).to.include({ tipoServicio: 3, nombreTipoServicio: 'Grúa', fechaCita: '', horaCita: '', guardian: 'SI', codigoServicio: 'SV-7K3M9Q' });
    expect(s.paradas).to.deep.equal([{ direccion: 'Cra 7', latitud: 4.6, longitud: -74.07, puntoReferencia: null, ciudad: null, departamento: null }]);
    expect(s.tecnico).to.deep.equal({ dniTecnico: '1020', nombre: 'Ana Pérez' });
    expect(s.vehiculo).to.deep.equal({ marca: 'Renault', modelo: '2019' });
  });

  it('never carries the customer phone, even when the source has one', () => {
    const s = servicio({ ...offer(), telefonoCliente: '+573001234567' } as ServicioSource, null);
    expect(JSON.stringify(s)).to.not.include('3001234567');
    expect(s.tecnico).to.equal(null);
  });
});
