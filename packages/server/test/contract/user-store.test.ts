import { onEveryMetadataDriver } from './metadata-drivers.js';
import { userStoreContract } from './user-store.contract.js';

onEveryMetadataDriver(userStoreContract);
