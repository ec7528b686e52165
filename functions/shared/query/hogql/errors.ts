import { ValidationError } from '../../http/errors';

/**
 * A HogQL query Flock does not run: a syntax error, a construct outside the supported subset, a name
 * that is not allowed, or a request past its bounds. Always a 400 in PostHog's error shape; `detail`
 * names the construct.
 */
export class HogQLError extends ValidationError {
  constructor(code: HogQLErrorCode, detail: string) {
    super(code, detail, 'query');
  }
}

export type HogQLErrorCode =
  /** The parser refused the text. */
  | 'hogql_syntax_error'
  /** A node, clause, function or type outside the supported subset. */
  | 'hogql_unsupported'
  /** A table or field that does not exist (or is not reachable from HogQL). */
  | 'hogql_unknown_name'
  /** Query text, AST depth or node count past its bound. */
  | 'hogql_too_large'
  /** A function called with the wrong number or kind of arguments. */
  | 'hogql_invalid_arguments'
  /** DuckDB refused the compiled query (a column neither grouped nor aggregated, a bad conversion…). */
  | 'hogql_query_error';
