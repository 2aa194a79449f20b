/**
 * SQLSTATEs that only a value of the request can cause: malformed text for its type (a uuid,
 * a number), a number out of its column's range, a string too long, a character PostgreSQL
 * cannot store (U+0000), a bad LIMIT or OFFSET, a date out of range, a statement too complex
 * (a huge list). The input rules and DTOs are meant to refuse these first; reaching the
 * database means a check is missing, so the answer is a 400 and the log a warning naming it.
 */
const INPUT_SQLSTATES = new Set([
  '22P02', // invalid_text_representation
  '22003', // numeric_value_out_of_range
  '22021', // character_not_in_repertoire
  '22001', // string_data_right_truncation
  '2201X', // invalid_row_count_in_result_offset_clause
  '2201W', // invalid_row_count_in_limit_clause
  '22007', // invalid_datetime_format
  '22008', // datetime_field_overflow
  '54001', // statement_too_complex
]);

/** PostgreSQL's text of a refused value ("invalid byte sequence for encoding ..."). */
export interface DatabaseInputError {
  sqlState: string;
  message: string;
}

/**
 * The SQLSTATE and message when `error` is PostgreSQL refusing a value of the request, else
 * null. TypeORM's QueryFailedError copies the driver's `code`; pg's own errors carry it with a
 * `severity`.
 */
export function databaseInputError(error: unknown): DatabaseInputError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, message, severity, driverError } = error as {
    code?: unknown;
    message?: unknown;
    severity?: unknown;
    driverError?: unknown;
  };
  const fromPostgres =
    typeof severity === 'string' || (typeof driverError === 'object' && driverError !== null);
  if (!fromPostgres || typeof code !== 'string' || !INPUT_SQLSTATES.has(code)) return null;
  return { sqlState: code, message: typeof message === 'string' ? message : '' };
}
