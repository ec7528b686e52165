import { documentClient } from '../../../../functions/shared/db/client';

describe('the shared DynamoDB document client', () => {
  it('has no logger middleware: nothing copies each response for a logger that drops it', () => {
    // Act
    const middleware = documentClient.middlewareStack.identify();

    // Assess: the logger's copy is gone; the rest of the stack (signing, retries, serde) is intact.
    expect(middleware.some((name) => name.startsWith('loggerMiddleware'))).toBe(false);
    expect(middleware.some((name) => name.startsWith('retryMiddleware'))).toBe(true);
    expect(middleware.some((name) => name.startsWith('httpSigningMiddleware'))).toBe(true);
  });
});
