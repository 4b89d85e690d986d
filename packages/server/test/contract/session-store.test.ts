import { onEveryMetadataDriver } from './metadata-drivers.js';
import { sessionStoreContract } from './session-store.contract.js';

onEveryMetadataDriver(sessionStoreContract);
