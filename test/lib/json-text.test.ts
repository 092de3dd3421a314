import { jsonTextIssues } from '../../src/lib/json-text';

// The scan must keep its place through everything JSON text can hold, or it names the wrong
// field: strings holding brackets, quotes and backslashes, escaped keys, empty containers.
const locs = (text: string, maxDepth = 64) => {
  JSON.parse(text); // only text JSON.parse accepts is ever scanned
  return jsonTextIssues(text, maxDepth).map((issue) => [issue.type, issue.loc]);
};

describe('jsonTextIssues', () => {
  it('finds nothing in ordinary JSON', () => {
    expect(locs('{"a":[1,-2.5,0,0.0,1e3,true,false,null,"x"],"b":{},"c":[]}')).toEqual([]);
    expect(locs('12')).toEqual([]);
  });

  it('keeps its place past strings that hold brackets, commas, quotes and backslashes', () => {
    const text = String.raw`{"s":"[{,\"}]","t\"k":"\\","u":[{},[],"\\\"",{"v":-0}],"w":1e999}`;
    expect(locs(text)).toEqual([
      ['negative_zero', ['body', 'u', 3, 'v']],
      ['finite_number', ['body', 'w']],
    ]);
  });

  it('names a key by its value, escapes decoded', () => {
    expect(locs(String.raw`{"a\u002eb":{"\"q\"":[0,1e-999]}}`)).toEqual([
      ['number_underflow', ['body', 'a.b', '"q"', 1]],
    ]);
  });

  it('a number at the root, and a lone surrogate at the root', () => {
    expect(locs('9007199254740992')).toEqual([['unsafe_integer', ['body']]]);
    expect(locs('"\\udfff"')).toEqual([['string_unicode', ['body']]]);
  });

  it('an escaped backslash before "u" is no escape of a surrogate', () => {
    expect(locs(String.raw`{"a":"\\ud800"}`)).toEqual([]);
  });

  it('too deep: only that, at the first container past the limit', () => {
    expect(locs('{"a":[[{"b":[1e999]}]]}', 3)).toEqual([['too_deep', ['body', 'a', 0, 0]]]);
  });

  it('a repeated key, at any depth and inside arrays, named at its second place', () => {
    expect(locs('{"a":1,"a":2}')).toEqual([['duplicate_key', ['body', 'a']]]);
    expect(locs('{"p":{"m":"first","m":"second"}}')).toEqual([
      ['duplicate_key', ['body', 'p', 'm']],
    ]);
    expect(locs('{"l":[{},{"x":{"s":"a","t":0,"s":"b"}}]}')).toEqual([
      ['duplicate_key', ['body', 'l', 1, 'x', 's']],
    ]);
  });

  it('a key repeated by its escape is the same key; one repeated three times is named once', () => {
    expect(locs(String.raw`{"ab":1,"ab":2}`)).toEqual([['duplicate_key', ['body', 'ab']]]);
    expect(locs('{"k":1,"k":2,"k":3}')).toEqual([['duplicate_key', ['body', 'k']]]);
  });

  it('the same key in sibling and nested objects is no repeat, nor "" beside another key', () => {
    expect(locs('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"":0,"c":{"":1}}')).toEqual([]);
    expect(locs('{"":1,"":2}')).toEqual([['duplicate_key', ['body', '']]]);
  });
});
