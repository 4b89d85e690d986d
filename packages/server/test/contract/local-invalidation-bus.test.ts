import { LocalInvalidationBus } from '../../src/storage/drivers/memory/memory-invalidation-bus.js';
import { invalidationBusContract } from './invalidation-bus.contract.js';

invalidationBusContract(
  'local (one process)',
  async () => ({ open: async () => new LocalInvalidationBus(), destroy: async () => {} }),
  { shared: false },
);
