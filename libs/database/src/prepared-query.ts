import { tagSocketError } from '@platform/core';
import type { DataSource, EntityManager } from 'typeorm';

/** The part of a pg pool or client that runs a named statement. */
interface NamedStatementRunner {
  query<R>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

/**
 * Runs `text` as a named (server-side prepared) statement: each pooled connection parses and
 * analyses it once instead of on every call, which matters for the large set-based statements
 * of hot paths. With `manager`, it runs on that transaction's connection; otherwise on any
 * pooled connection, as its own transaction. Answers the rows.
 */
export async function preparedQuery<R>(
  dataSource: DataSource,
  statement: { name: string; text: string },
  values: unknown[],
  manager?: EntityManager,
): Promise<R[]> {
  const runner: NamedStatementRunner = manager?.queryRunner
    ? ((await manager.queryRunner.connect()) as NamedStatementRunner)
    : (dataSource.driver as unknown as { master: NamedStatementRunner }).master;
  try {
    const { rows } = await runner.query<R>({ ...statement, values });
    return rows;
  } catch (error) {
    throw tagSocketError(error, 'database');
  }
}
