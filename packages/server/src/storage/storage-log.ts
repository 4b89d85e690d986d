/** Where a storage component reports what operators must hear of (pino-compatible: app.log fits). */
export interface StorageLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export const silentLog: StorageLog = { info() {}, warn() {} };
