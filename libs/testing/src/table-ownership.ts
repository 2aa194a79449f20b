import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** Who owns a table, and which library's released migration created it if another one did. */
export interface TableOwner {
  library: string;
  tables: readonly string[];
  createdElsewhere?: Readonly<Record<string, string>>;
}

/** A statement found in a library's source. */
export interface TableUse {
  file: string;
  library: string;
  table: string;
  statement: string;
}

export interface OwnershipReport {
  /** Writes to a table another library owns, or that nobody owns. */
  foreignWrites: Array<TableUse & { owner: string | null }>;
  /** CREATE TABLE in a library's migration of a table neither owned by it nor declared created there. */
  misplacedCreates: Array<TableUse & { owner: string | null }>;
  /** Reads of another library's tables: allowed for now, reported so the list can shrink. */
  foreignReads: Array<TableUse & { owner: string }>;
}

const IDENT = String.raw`(?:public\.)?"?([a-z_][a-z0-9_]*)"?`;
/** Statements that write a table; the keywords are matched in upper case, as the SQL here is. */
const WRITES: ReadonlyArray<[statement: string, pattern: RegExp]> = [
  ['INSERT INTO', new RegExp(String.raw`\bINSERT\s+INTO\s+${IDENT}`, 'g')],
  // Not the locking clause (FOR UPDATE, FOR NO KEY UPDATE) nor ON CONFLICT ... DO UPDATE.
  ['UPDATE', new RegExp(String.raw`(?<!\b(?:FOR|KEY|DO)\s+)\bUPDATE\s+(?:ONLY\s+)?${IDENT}`, 'g')],
  ['DELETE FROM', new RegExp(String.raw`\bDELETE\s+FROM\s+(?:ONLY\s+)?${IDENT}`, 'g')],
  ['MERGE INTO', new RegExp(String.raw`\bMERGE\s+INTO\s+${IDENT}`, 'g')],
  [
    'ALTER TABLE',
    new RegExp(String.raw`\bALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?${IDENT}`, 'g'),
  ],
  [
    'CREATE TABLE',
    new RegExp(
      String.raw`\bCREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?${IDENT}`,
      'g',
    ),
  ],
  ['DROP TABLE', new RegExp(String.raw`\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?${IDENT}`, 'g')],
  [
    'CREATE INDEX',
    new RegExp(String.raw`\bCREATE\s+(?:UNIQUE\s+)?INDEX\b[^;]*?\bON\s+(?:ONLY\s+)?${IDENT}`, 'g'),
  ],
];
const TRUNCATE =
  /\bTRUNCATE\s+(?:TABLE\s+)?((?:(?:public\.)?[a-z_][a-z0-9_]*\s*,\s*)*(?:public\.)?[a-z_][a-z0-9_]*)/g;
const READS = new RegExp(String.raw`\b(?:FROM|JOIN)\s+(?:ONLY\s+|LATERAL\s+)?${IDENT}`, 'g');
/** TypeORM entity writes: `getRepository(Entity).save(...)`, `manager.save(Entity, ...)`. */
const ENTITY_WRITE =
  /\bgetRepository\(\s*([A-Z]\w*)\s*\)\s*\.\s*(?:save|insert|update|upsert|delete|remove|softDelete|increment|decrement)\b|\.(?:save|insert|update|upsert|delete|remove)\(\s*([A-Z]\w*)\s*,/g;
const ENTITY =
  /@Entity\(\s*['"`]([a-z_][a-z0-9_]*)['"`]\s*\)\s*(?:@\w+\([^)]*\)\s*)*export\s+class\s+(\w+)/g;
const CREATE_TABLE = 'CREATE TABLE';

/** The text of every string and template literal of a TypeScript source, substitutions as `$`. */
export function sqlTexts(source: string): string[] {
  const file = ts.createSourceFile('source.ts', source, ts.ScriptTarget.Latest, false);
  const texts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
    else if (ts.isTemplateExpression(node))
      texts.push(node.head.text + node.templateSpans.map((s) => `$${s.literal.text}`).join(''));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return texts;
}

/** Table names of CTEs and of a statement's own aliases are not tables; CTE names are dropped. */
function cteNames(sql: string): Set<string> {
  return new Set(
    [...sql.matchAll(/\b([a-z_][a-z0-9_]*)\s+AS\s+(?:NOT\s+)?(?:MATERIALIZED\s+)?\(/g)].map(
      (m) => m[1],
    ),
  );
}

export function writesIn(sql: string): Array<{ table: string; statement: string }> {
  const found: Array<{ table: string; statement: string }> = [];
  for (const [statement, pattern] of WRITES)
    for (const match of sql.matchAll(pattern)) found.push({ table: match[1], statement });
  for (const match of sql.matchAll(TRUNCATE))
    for (const table of match[1].split(','))
      found.push({ table: table.trim().replace(/^public\./, ''), statement: 'TRUNCATE' });
  return found;
}

export function readsIn(sql: string): string[] {
  const ctes = cteNames(sql);
  return [...sql.matchAll(READS)].map((m) => m[1]).filter((t) => !ctes.has(t));
}

/** Entity class → table, from `@Entity('table')` declarations. */
export function entityTables(sources: readonly string[]): Map<string, string> {
  const tables = new Map<string, string>();
  for (const source of sources)
    for (const match of source.matchAll(ENTITY)) tables.set(match[2], match[1]);
  return tables;
}

export function entityWritesIn(source: string, entities: ReadonlyMap<string, string>) {
  return [...source.matchAll(ENTITY_WRITE)].flatMap((m) => {
    const table = entities.get(m[1] ?? m[2]);
    return table ? [{ table, statement: `entity write (${m[1] ?? m[2]})` }] : [];
  });
}

export interface LibrarySource {
  /** Path shown in findings. */
  file: string;
  library: string;
  migration: boolean;
  text: string;
}

/** Every `.ts` file under `libs/<library>/src` but specs, with whether it is a migration. */
export function librarySources(root: string, skip: readonly string[] = []): LibrarySource[] {
  const libs = join(root, 'libs');
  const sources: LibrarySource[] = [];
  for (const library of readdirSync(libs)) {
    if (skip.includes(library)) continue;
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts') && !name.endsWith('.spec.ts'))
          sources.push({
            file: relative(root, path),
            library,
            migration: /\/src\/migrations\/\d+-[^/]+\.ts$/.test(path),
            text: readFileSync(path, 'utf8'),
          });
      }
    };
    walk(join(libs, library, 'src'));
  }
  return sources;
}

/** Checks the sources against the owners: who writes what, which migration creates what. */
export function checkOwnership(
  sources: readonly LibrarySource[],
  owners: readonly TableOwner[],
): OwnershipReport {
  const ownerOf = new Map<string, string>();
  for (const { library, tables } of owners) for (const table of tables) ownerOf.set(table, library);
  const createdBy = new Map<string, string>();
  for (const { createdElsewhere } of owners)
    for (const [table, library] of Object.entries(createdElsewhere ?? {}))
      createdBy.set(table, library);
  const entities = entityTables(sources.map((s) => s.text));

  const report: OwnershipReport = { foreignWrites: [], misplacedCreates: [], foreignReads: [] };
  for (const source of sources) {
    const use = (table: string, statement: string) => ({
      file: source.file,
      library: source.library,
      table,
      statement,
      owner: ownerOf.get(table) ?? null,
    });
    if (source.migration) {
      for (const sql of sqlTexts(source.text))
        for (const { table, statement } of writesIn(sql))
          if (
            statement === CREATE_TABLE &&
            ownerOf.get(table) !== source.library &&
            createdBy.get(table) !== source.library
          )
            report.misplacedCreates.push(use(table, statement));
      continue;
    }
    const writes = [
      ...sqlTexts(source.text).flatMap((sql) => writesIn(sql)),
      ...entityWritesIn(source.text, entities),
    ];
    for (const { table, statement } of writes)
      if (ownerOf.get(table) !== source.library) report.foreignWrites.push(use(table, statement));
    for (const sql of sqlTexts(source.text))
      for (const table of new Set(readsIn(sql))) {
        const owner = ownerOf.get(table);
        if (owner && owner !== source.library)
          report.foreignReads.push({ ...use(table, 'read'), owner });
      }
  }
  return report;
}
