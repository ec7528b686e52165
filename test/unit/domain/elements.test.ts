import {
  chainToElements,
  elementsToString,
  extractElements,
  takeElementsChain,
} from '../../../functions/shared/domain/elements';

describe('elements_chain', () => {
  it('writes tag, sorted classes and sorted attributes in PostHog’s format', () => {
    const chain = elementsToString(
      extractElements([
        {
          tag_name: 'a',
          $el_text: 'Sign up',
          attr__class: 'btn primary',
          attr__href: '/signup',
          attr__id: 'cta',
          nth_child: 1,
          nth_of_type: 2,
        },
        { tag_name: 'div', nth_child: 3, nth_of_type: 1 },
      ]),
    );
    expect(chain).toBe(
      'a.btn.primary:attr__class="btn primary"attr__href="/signup"attr__id="cta"attr_id="cta"href="/signup"nth-child="1"nth-of-type="2"text="Sign up";' +
        'div:nth-child="3"nth-of-type="1"',
    );
  });

  it('defaults nth-child and nth-of-type to 0 and leaves out empty text, href and id', () => {
    expect(elementsToString(extractElements([{ tag_name: 'span', $el_text: '' }]))).toBe(
      'span:nth-child="0"nth-of-type="0"',
    );
  });

  it('escapes quotes in attribute values and strips them from class names', () => {
    expect(
      elementsToString(extractElements([{ tag_name: 'button', attr__class: ['a"b'], $el_text: 'say "hi"' }])),
    ).toBe('button.ab:attr__class="a\\"b"nth-child="0"nth-of-type="0"text="say \\"hi\\""');
  });

  it('cuts text to 400 and href to 2048 characters', () => {
    const [element] = extractElements([{ $el_text: 'x'.repeat(500), attr__href: 'h'.repeat(3000) }]);
    expect(element!.text).toHaveLength(400);
    expect(element!.href).toHaveLength(2048);
  });

  it('prefers an $elements_chain string sent by posthog-js and removes both from the properties', () => {
    const properties: Record<string, unknown> = {
      $elements_chain: 'a:nth-child="1"nth-of-type="1"',
      $elements: [{ tag_name: 'div' }],
      $event_type: 'click',
    };
    expect(takeElementsChain(properties)).toBe('a:nth-child="1"nth-of-type="1"');
    expect(properties).toEqual({ $event_type: 'click' });
  });

  it('builds the chain from $elements when no string is sent', () => {
    const properties: Record<string, unknown> = {
      $elements: [{ tag_name: 'div', nth_child: 1, nth_of_type: 1 }],
    };
    expect(takeElementsChain(properties)).toBe('div:nth-child="1"nth-of-type="1"');
    expect(properties).toEqual({});
  });

  it('gives an empty chain for an event without elements', () => {
    expect(takeElementsChain({ plan: 'pro' })).toBe('');
  });
});

describe('chainToElements', () => {
  it('parses an elements chain back into elements, in chain order', () => {
    const chain =
      'a.btn.btn-primary:attr__class="btn btn-primary"attr__href="/signup"href="/signup"nth-child="2"nth-of-type="1"text="Sign up";div.container:attr_id="main"nth-child="1"nth-of-type="1"';
    expect(chainToElements(chain)).toEqual([
      {
        event: null,
        text: 'Sign up',
        tag_name: 'a',
        attr_class: ['btn', 'btn-primary'],
        href: '/signup',
        attr_id: null,
        nth_child: 2,
        nth_of_type: 1,
        attributes: { attr__class: 'btn btn-primary', attr__href: '/signup' },
        order: 0,
      },
      {
        event: null,
        text: null,
        tag_name: 'div',
        attr_class: ['container'],
        href: null,
        attr_id: 'main',
        nth_child: 1,
        nth_of_type: 1,
        attributes: {},
        order: 1,
      },
    ]);
  });

  it('round-trips what elementsToString writes', () => {
    const elements = extractElements([
      { tag_name: 'button', $el_text: 'Buy', attr__class: 'cta big', nth_child: 3, nth_of_type: 1 },
    ]);
    const [parsed] = chainToElements(elementsToString(elements));
    expect(parsed).toMatchObject({
      tag_name: 'button',
      text: 'Buy',
      attr_class: ['big', 'cta'],
      nth_child: 3,
    });
  });

  it('gives no elements for an empty chain', () => {
    expect(chainToElements('')).toEqual([]);
  });
});
