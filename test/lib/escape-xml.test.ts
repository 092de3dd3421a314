import { escapeXml } from '../../src/lib/escape-xml';

describe('escapeXml', () => {
  it('escapes the five XML specials, ampersands first', () => {
    expect(escapeXml(`a & <b> "c" 'd' &amp;`)).toBe(
      'a &amp; &lt;b&gt; &quot;c&quot; &apos;d&apos; &amp;amp;',
    );
  });

  it('leaves other text as it is', () => {
    expect(escapeXml('Ops team · 42 → ok')).toBe('Ops team · 42 → ok');
  });
});
