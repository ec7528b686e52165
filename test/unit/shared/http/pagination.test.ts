import {
  pageLinks,
  pageOf,
  paginated,
  requestUrl,
  slicePage,
} from '../../../../functions/shared/http/pagination';
import { httpEvent } from '../../../helpers/http-event';

const list = (query = '', options: { stage?: string; path?: string } = {}) =>
  httpEvent('GET', options.path ?? '/api/projects/', { query, stage: options.stage });

describe('pageOf', () => {
  it('defaults to 100 items from the start', () => {
    expect(pageOf(list())).toEqual({ limit: 100, offset: 0 });
  });

  it('reads limit and offset', () => {
    expect(pageOf(list('limit=5&offset=10'))).toEqual({ limit: 5, offset: 10 });
  });

  it('clamps a limit above the maximum to it', () => {
    expect(pageOf(list('limit=100000'))).toEqual({ limit: 1000, offset: 0 });
  });

  it.each([
    ['limit=abc', 'limit', 'A valid integer is required.'],
    ['limit=1.5', 'limit', 'A valid integer is required.'],
    ['limit=-1', 'limit', 'A valid integer is required.'],
    ['limit=', 'limit', 'A valid integer is required.'],
    ['limit=0', 'limit', 'Ensure this value is greater than or equal to 1.'],
    ['offset=x', 'offset', 'A valid integer is required.'],
  ])('answers 400 validation_error for %s', (query, attr, detail) => {
    expect(() => pageOf(list(query))).toThrow(
      expect.objectContaining({ statusCode: 400, type: 'validation_error', attr, detail }),
    );
  });
});

describe('pageLinks (DRF LimitOffsetPagination)', () => {
  it('links the next page with limit and offset + limit, and no previous on the first page', () => {
    expect(pageLinks(list(), { limit: 2, offset: 0 }, 5)).toEqual({
      next: 'https://api.example.com/api/projects/?limit=2&offset=2',
      previous: null,
    });
  });

  it('has no next page when this one reaches the end', () => {
    expect(pageLinks(list('limit=2&offset=3'), { limit: 2, offset: 3 }, 5).next).toBeNull();
    expect(pageLinks(list('limit=2&offset=4'), { limit: 2, offset: 4 }, 5).next).toBeNull();
  });

  it('links the previous page with offset - limit', () => {
    expect(pageLinks(list('limit=2&offset=4'), { limit: 2, offset: 4 }, 10).previous).toBe(
      'https://api.example.com/api/projects/?limit=2&offset=2',
    );
  });

  it('drops offset from the previous link when it would be 0 or less', () => {
    expect(pageLinks(list('limit=2&offset=2'), { limit: 2, offset: 2 }, 10).previous).toBe(
      'https://api.example.com/api/projects/?limit=2',
    );
    expect(pageLinks(list('limit=5&offset=3'), { limit: 5, offset: 3 }, 10).previous).toBe(
      'https://api.example.com/api/projects/?limit=5',
    );
  });

  it('keeps the other query parameters, as sent', () => {
    const event = list('search=sign%20up&limit=1&event_type=event', {
      path: '/api/projects/1/event_definitions/',
    });
    expect(pageLinks(event, { limit: 1, offset: 0 }, 3).next).toBe(
      'https://api.example.com/api/projects/1/event_definitions/?search=sign+up&limit=1&event_type=event&offset=1',
    );
  });
});

describe('requestUrl', () => {
  it('builds the URL from the request host and scheme', () => {
    expect(requestUrl(list(), {})).toBe('https://api.example.com/api/projects/');
  });

  it('adds a named stage once, whether or not the raw path carries it', () => {
    expect(requestUrl(list('', { stage: 'prod' }), { limit: '1' })).toBe(
      'https://api.example.com/prod/api/projects/?limit=1',
    );
    const withStage = { ...list('', { stage: 'prod' }), rawPath: '/prod/api/projects/' };
    expect(requestUrl(withStage, {})).toBe('https://api.example.com/prod/api/projects/');
  });

  it('never echoes a personal API key sent in the query into a link', () => {
    expect(requestUrl(list('personal_api_key=phx_secret&limit=1'), { offset: '1' })).toBe(
      'https://api.example.com/api/projects/?limit=1&offset=1',
    );
  });
});

describe('paginated', () => {
  it('wraps a page in the {count, next, previous, results} envelope', () => {
    const page = { limit: 2, offset: 2 };
    expect(paginated(list('limit=2&offset=2'), page, 5, slicePage(['a', 'b', 'c', 'd', 'e'], page))).toEqual({
      count: 5,
      next: 'https://api.example.com/api/projects/?limit=2&offset=4',
      previous: 'https://api.example.com/api/projects/?limit=2',
      results: ['c', 'd'],
    });
  });
});
