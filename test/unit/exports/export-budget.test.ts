import { perConfigBudgetMs } from '../../../functions/exports/live';
import { envNames } from '../../../functions/shared/config';

describe("an export config's upload budget per invocation", () => {
  const budgetWith = (value?: string): number =>
    perConfigBudgetMs(value === undefined ? {} : { [envNames.exportBudgetMs]: value });

  it('is 45 s unless the environment sets it', () => {
    expect(budgetWith()).toBe(45_000);
  });

  it('takes a shorter budget in whole milliseconds', () => {
    expect(budgetWith('15000')).toBe(15_000);
    expect(budgetWith('1')).toBe(1);
  });

  it('never exceeds 45 s, which leaves the bookkeeping its time within the function timeout', () => {
    expect(budgetWith('120000')).toBe(45_000);
  });

  it.each(['', '0', '-5', '1.5', 'abc', '1e400', 'Infinity'])('ignores %j', (value) => {
    expect(budgetWith(value)).toBe(45_000);
  });
});
