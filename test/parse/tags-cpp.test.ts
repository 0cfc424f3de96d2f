import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `#include <memory>
#include <vector>
#include "geometry/shape.h"

#define GEO_VERSION 3

namespace geo {

using Scalar = double;
typedef std::vector<Scalar> Coords;

enum class Kind : int { Circle, Square = 2 };

struct Point {
  Scalar x, y;
};

class Shape : public Base, protected util::Named<Shape> {
public:
  explicit Shape(Kind kind) : kind_(kind) {}
  virtual ~Shape();
  virtual Scalar area() const = 0;
  bool operator==(const Shape& other) const;
  Kind kind() const { return kind_; }

private:
  Kind kind_;
  static int count_;
};

template <typename T>
class Registry {
public:
  void add(std::unique_ptr<T> item) { items_.push_back(std::move(item)); }
  T* find(const std::string& name) const;

private:
  std::vector<std::unique_ptr<T>> items_;
};

int Shape::count_ = 0;

Shape::~Shape() { --count_; }

bool Shape::operator==(const Shape& other) const {
  return kind_ == other.kind_;
}

template <typename T>
T* Registry<T>::find(const std::string& name) const {
  for (const auto& item : items_) {
    if (item->name() == name) return item.get();
  }
  return nullptr;
}

Scalar total(const std::vector<Shape*>& shapes, Scalar scale = 1.0) {
  Scalar sum = 0;
  for (auto* s : shapes) sum += s->area() * scale;
  auto registry = std::make_unique<Registry<Shape>>();
  Point origin{0, 0};
  util::log(origin.x, GEO_VERSION);
  return detail::round(sum);
}

}  // namespace geo

int main() {
  auto* circle = new geo::Circle(2.0);
  geo::Shape* shape = circle;
  return geo::total({shape}) > 0 ? 0 : 1;
}
`

describe('tags: C++', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('cpp', SOURCE)
  })

  it('finds every definition; out-of-line definitions replace the in-class declarations', () => {
    assert.deepEqual(definitions(tags), [
      ['GEO_VERSION', 'GEO_VERSION', 'constant', 5, 5, ''],
      ['geo', 'geo', 'namespace', 7, 66, ''],
      ['Scalar', 'geo.Scalar', 'type', 9, 9, 'geo'],
      ['Coords', 'geo.Coords', 'type', 10, 10, 'geo'],
      ['Kind', 'geo.Kind', 'enum', 12, 12, 'geo'],
      ['Circle', 'geo.Kind.Circle', 'constant', 12, 12, 'geo.Kind'],
      ['Square', 'geo.Kind.Square', 'constant', 12, 12, 'geo.Kind'],
      ['Point', 'geo.Point', 'struct', 14, 16, 'geo'],
      ['x', 'geo.Point.x', 'field', 15, 15, 'geo.Point'],
      ['y', 'geo.Point.y', 'field', 15, 15, 'geo.Point'],
      ['Shape', 'geo.Shape', 'class', 18, 29, 'geo'],
      ['Shape', 'geo.Shape.Shape', 'method', 20, 20, 'geo.Shape'],
      ['area', 'geo.Shape.area', 'method', 22, 22, 'geo.Shape'],
      ['kind', 'geo.Shape.kind', 'method', 24, 24, 'geo.Shape'],
      ['kind_', 'geo.Shape.kind_', 'field', 27, 27, 'geo.Shape'],
      ['count_', 'geo.Shape.count_', 'field', 28, 28, 'geo.Shape'],
      ['Registry', 'geo.Registry', 'class', 31, 39, 'geo'],
      ['add', 'geo.Registry.add', 'method', 34, 34, 'geo.Registry'],
      ['items_', 'geo.Registry.items_', 'field', 38, 38, 'geo.Registry'],
      ['~Shape', 'geo.Shape.~Shape', 'method', 43, 43, 'geo.Shape'],
      ['operator==', 'geo.Shape.operator==', 'method', 45, 47, 'geo.Shape'],
      ['find', 'geo.Registry.find', 'method', 49, 55, 'geo.Registry'],
      ['total', 'geo.total', 'function', 57, 64, 'geo'],
      ['main', 'main', 'function', 68, 72, ''],
    ])
  })

  it('gives signatures up to the body, templates included', () => {
    assert.equal(signatureOf(tags, 'geo.Shape'), 'class Shape : public Base, protected util::Named<Shape>')
    assert.equal(signatureOf(tags, 'geo.Registry'), 'template <typename T> class Registry')
    assert.equal(signatureOf(tags, 'geo.Registry.find'), 'template <typename T> T* Registry<T>::find(const std::string& name) const')
    assert.equal(signatureOf(tags, 'geo.Shape.Shape'), 'explicit Shape(Kind kind) : kind_(kind)')
    assert.equal(signatureOf(tags, 'geo.Shape.area'), 'virtual Scalar area() const = 0;')
    assert.equal(signatureOf(tags, 'geo.Kind'), 'enum class Kind : int')
    assert.equal(signatureOf(tags, 'geo.Scalar'), 'using Scalar = double;')
    assert.equal(signatureOf(tags, 'geo.total'), 'Scalar total(const std::vector<Shape*>& shapes, Scalar scale = 1.0)')
  })

  it('reports bases as inheritance', () => {
    assert.deepEqual(referencesIn(tags, 'geo.Shape'), [
      ['Base', 18, 'inherit', undefined],
      ['Named', 18, 'inherit', 'util'],
      ['Shape', 18, 'type', undefined],
      ['Kind', 27, 'type', undefined],
    ])
  })

  it('reports calls with receivers and qualifiers, skipping parameters, locals and type parameters', () => {
    assert.deepEqual(referencesIn(tags, 'geo.total'), [
      ['Scalar', 57, 'type', undefined],
      ['vector', 57, 'type', 'std'],
      ['Shape', 57, 'type', undefined],
      ['Scalar', 57, 'type', undefined],
      ['Scalar', 58, 'type', undefined],
      ['area', 59, 'call', 's'],
      ['make_unique', 60, 'call', 'std'],
      ['Registry', 60, 'type', undefined],
      ['Shape', 60, 'type', undefined],
      ['Point', 61, 'type', undefined],
      ['log', 62, 'call', 'util'],
      ['GEO_VERSION', 62, 'reference', undefined],
      ['round', 63, 'call', 'detail'],
    ])
    // The in-class declaration (line 35) encloses its own parameter types under the same name.
    assert.deepEqual(referencesIn(tags, 'geo.Registry.find'), [
      ['string', 35, 'type', 'std'],
      ['Registry', 50, 'type', undefined],
      ['string', 50, 'type', 'std'],
      ['items_', 51, 'reference', undefined],
      ['name', 52, 'call', 'item'],
      ['get', 52, 'call', 'item'],
    ])
    assert.deepEqual(referencesIn(tags, 'main'), [
      ['Circle', 69, 'call', 'geo'],
      ['Shape', 70, 'type', 'geo'],
      ['total', 71, 'call', 'geo'],
    ])
  })

  it('reads includes', () => {
    assert.deepEqual(tags.imports, [
      { module: 'memory', names: [], line: 1, relative: false },
      { module: 'vector', names: [], line: 2, relative: false },
      { module: 'geometry/shape.h', names: [], line: 3, relative: true },
    ])
  })
})
