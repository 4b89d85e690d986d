import { onEveryMetadataDriver } from './metadata-drivers.js';
import { tokenStoreContract } from './token-store.contract.js';

onEveryMetadataDriver(tokenStoreContract);
