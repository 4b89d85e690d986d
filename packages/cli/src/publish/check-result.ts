/** What one engine's checks of a package found. */
export interface PackageChecks {
  /** Each stops the publish. */
  problems: string[];
  /** Printed, the publish goes on. */
  warnings: string[];
}
