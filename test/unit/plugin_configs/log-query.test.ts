import { pluginLogQuery, pluginLogQuerySchema } from '../../../functions/plugin_configs/log-query';
import { maxLimit } from '../../../functions/shared/http/pagination';
import { parseQuery } from '../../../functions/shared/http/private-route';
import { apiGatewayEvent } from '../../helpers/http-event';

const logsPath = '/api/projects/1/plugin_configs/2/logs/';

/** What `GET …/logs/?<query>` parses to. */
function parsed(query: Record<string, string>) {
  const event = apiGatewayEvent({ method: 'GET', path: logsPath, query });
  return pluginLogQuery(parseQuery(event, pluginLogQuerySchema));
}

/** The 400 `GET …/logs/?<query>` answers, or the parsed query if it answers none. */
function parse(query: Record<string, string>): unknown {
  try {
    return parsed(query);
  } catch (error) {
    const { statusCode: status, code, detail, attr } = error as Record<string, unknown>;
    return { status, code, detail, attr };
  }
}

describe('the plugin log query, parsed by its documented schema', () => {
  it('answers PostHog’s 400s, naming the parameter', () => {
    expect(parse({ limit: 'ten' })).toEqual({
      status: 400,
      code: 'invalid_input',
      detail: 'Query param limit must be omitted or an integer!',
      attr: 'limit',
    });
    expect(parse({ offset: '-1' })).toMatchObject({ status: 400, attr: 'offset' });
    expect(parse({ type_filter: 'info,FATAL' })).toEqual({
      status: 400,
      code: 'invalid_choice',
      detail: '"FATAL" is not a valid choice: use DEBUG, LOG, INFO, WARN, ERROR.',
      attr: 'type_filter',
    });
    expect(parse({ after: 'yesterday' })).toMatchObject({
      status: 400,
      detail: 'Query param after must be an ISO 8601 date-time.',
      attr: 'after',
    });
    expect(parse({ before: '2024-13-45T00:00:00Z' })).toMatchObject({ status: 400, attr: 'before' });
  });

  it('gives a clamped page and the filter', () => {
    expect(parse({})).toEqual({ page: { limit: 100, offset: 0 }, filter: { types: [] } });
    expect(parsed({ limit: '0', offset: '5' }).page).toEqual({ limit: 1, offset: 5 });
    expect(parsed({ limit: '999999999' }).page).toEqual({ limit: maxLimit, offset: 0 });
    expect(
      parsed({
        type_filter: ' error,INFO,error ',
        search: 'x'.repeat(500),
        after: '2024-01-01 10:00Z',
        before: '',
      }).filter,
    ).toEqual({ types: ['ERROR', 'INFO'], after: new Date('2024-01-01T10:00Z'), search: 'x'.repeat(400) });
  });
});
