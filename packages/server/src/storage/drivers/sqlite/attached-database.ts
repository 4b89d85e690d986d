import type Database from 'better-sqlite3';

type Db = Database.Database;

/**
 * The metadata store's connection as a store beside the documents holds it (search index,
 * download counts, uplink cache): bound after construction, when create-storage attaches it,
 * so that their writes share the metadata store's transactions; statements are prepared once.
 */
export class AttachedDatabase {
  #db: Db | undefined;
  readonly #statements = new Map<string, Database.Statement>();

  /** `owner` names the store in the error of a use before `attach`. */
  constructor(readonly owner: string) {}

  attach(db: Db): void {
    this.#db = db;
  }

  /** True when `db` is the connection attached. */
  is(db: Db): boolean {
    return db === this.#db;
  }

  require(): Db {
    if (!this.#db) throw new Error(`${this.owner} is not attached to a database`);
    return this.#db;
  }

  /** `sql` prepared on the attached connection, once per text. */
  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.require().prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
