import { documentClient, lowLevelClient } from '../../../../functions/shared/db/client';

describe('the shared DynamoDB clients', () => {
  it.each([
    ['document', documentClient],
    ['low-level', lowLevelClient],
  ] as const)(
    'the %s client has no logger middleware: nothing copies each response for a logger that drops it',
    (_, client) => {
      // Act
      const middleware = client.middlewareStack.identify();

      // Assess: the logger's copy is gone; the rest of the stack (signing, retries, serde) is intact.
      expect(middleware.some((name) => name.startsWith('loggerMiddleware'))).toBe(false);
      expect(middleware.some((name) => name.startsWith('retryMiddleware'))).toBe(true);
      expect(middleware.some((name) => name.startsWith('httpSigningMiddleware'))).toBe(true);
    },
  );

  it('the low-level client resolves its middleware stack once per command class (cacheMiddleware)', () => {
    expect(lowLevelClient.config.cacheMiddleware).toBe(true);
  });
});
