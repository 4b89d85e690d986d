import { onEveryMetadataDriver } from './metadata-drivers.js';
import { tenantStoreContract } from './tenant-store.contract.js';

onEveryMetadataDriver(tenantStoreContract);
