//===- Format.cpp - NumPy-style text for tensors --------------------------===//
//
// A port of the parts of numpy/core/arrayprint.py (1.24) that str() uses:
// FloatingFormat.fillFormat and __call__, IntegerFormat, BoolFormat and
// _formatArray with line wrapping and summarization. Shortest round-trip
// digits come from std::to_chars, which gives the same digits as NumPy's
// Dragon4 in unique mode; where more than `precision` fractional digits would
// be needed, the exact binary value is rounded instead (as Dragon4 does).
//
//===----------------------------------------------------------------------===//

#include "tflrt/Format.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

namespace tflrt {
namespace {

constexpr int kPrecision = 8;
constexpr int kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

/// Shortest round-trip digits of `x` (as f32 or f64) in scientific form:
/// mantissa digits without the point, and the decimal exponent.
void shortestDigits(double x, DType dtype, std::string &digits, int &exp10) {
  char buf[64];
  std::to_chars_result r;
  if (isHalf(dtype)) {
    // The fewest digits that read back (through f32) as the same 16-bit
    // value, as NumPy prints float16.
    float f = static_cast<float>(x);
    uint16_t bits = floatToHalf(dtype, f);
    for (int p = 0;; ++p) {
      r = std::to_chars(buf, buf + sizeof(buf), f,
                        std::chars_format::scientific, p);
      float back = 0;
      std::from_chars(buf, r.ptr, back);
      if (floatToHalf(dtype, back) == bits || p >= 9)
        break;
    }
  } else if (dtype == DType::F64) {
    r = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  } else {
    r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(x),
                      std::chars_format::scientific);
  }
  std::string s(buf, r.ptr);
  size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  exp10 = std::stoi(s.substr(e + 1));
  digits.clear();
  for (char c : mant)
    if (c >= '0' && c <= '9')
      digits += c;
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
}

/// Dragon4 positional, unique, at most `precision` fractional digits,
/// trailing zeros trimmed, the point kept ("2.", "0.25"). Sign included.
std::string positional(double x, DType dtype, int precision) {
  std::string digits;
  int exp10;
  shortestDigits(std::fabs(x), dtype, digits, exp10);
  int fracDigits = static_cast<int>(digits.size()) - (exp10 + 1);
  std::string out;
  if (fracDigits > precision) {
    char buf[512];
    std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), std::fabs(x),
                                           std::chars_format::fixed, precision);
    out.assign(buf, r.ptr);
    while (!out.empty() && out.back() == '0')
      out.pop_back();
  } else if (exp10 >= 0) {
    std::string intPart =
        digits.substr(0, std::min<size_t>(digits.size(), exp10 + 1));
    intPart.append(exp10 + 1 - intPart.size(), '0');
    std::string frac = digits.size() > static_cast<size_t>(exp10 + 1)
                           ? digits.substr(exp10 + 1)
                           : "";
    out = intPart + "." + frac;
  } else {
    out = "0." + std::string(-exp10 - 1, '0') + digits;
  }
  if (std::signbit(x))
    out = "-" + out;
  return out;
}

/// Dragon4 scientific, unique, at most `precision` fractional digits and at
/// least `minDigits`: when the shortest unique digits are fewer, Dragon4
/// goes on with the value's exact digits (not zeros), as NumPy prints
/// float32 876998976 padded to 7 digits as 8.7699898e+08. The point is kept;
/// the exponent has at least `expDigits` digits.
std::string scientific(double x, DType dtype, int precision, int minDigits,
                       int expDigits) {
  std::string digits;
  int exp10;
  shortestDigits(std::fabs(x), dtype, digits, exp10);
  int fracDigits = static_cast<int>(digits.size()) - 1;
  if (fracDigits > precision || fracDigits < minDigits) {
    int wanted = fracDigits > precision ? precision : minDigits;
    char buf[64];
    std::to_chars_result r =
        std::to_chars(buf, buf + sizeof(buf), std::fabs(x),
                      std::chars_format::scientific, wanted);
    std::string s(buf, r.ptr);
    size_t e = s.find('e');
    exp10 = std::stoi(s.substr(e + 1));
    digits.clear();
    for (char c : s.substr(0, e))
      if (c >= '0' && c <= '9')
        digits += c;
    while (static_cast<int>(digits.size()) - 1 > minDigits &&
           digits.back() == '0')
      digits.pop_back();
  }
  std::string frac = digits.substr(1);
  if (static_cast<int>(frac.size()) < minDigits)
    frac.append(minDigits - frac.size(), '0');
  std::string expStr = std::to_string(std::abs(exp10));
  if (static_cast<int>(expStr.size()) < expDigits)
    expStr = std::string(expDigits - expStr.size(), '0') + expStr;
  std::string out =
      digits.substr(0, 1) + "." + frac + "e" + (exp10 < 0 ? "-" : "+") + expStr;
  if (std::signbit(x))
    out = "-" + out;
  return out;
}

/// NumPy's FloatingFormat for one array (fillFormat + __call__).
class FloatFormat {
public:
  FloatFormat(const std::vector<double> &data, DType dtype) : dtype(dtype) {
    std::vector<double> finite;
    for (double v : data)
      if (std::isfinite(v))
        finite.push_back(v);
    double maxVal = 0, minVal = std::numeric_limits<double>::infinity();
    bool anyNonZero = false;
    for (double v : finite) {
      if (v == 0)
        continue;
      anyNonZero = true;
      maxVal = std::max(maxVal, std::fabs(v));
      minVal = std::min(minVal, std::fabs(v));
    }
    if (anyNonZero &&
        (maxVal >= 1e8 || minVal < 0.0001 || maxVal / minVal > 1000.0))
      expFormat = true;

    if (finite.empty()) {
      padLeft = padRight = 0;
    } else if (expFormat) {
      size_t maxInt = 0, maxFrac = 0, maxExp = 0;
      for (double v : finite) {
        std::string s = scientific(v, dtype, kPrecision, 0, 2);
        size_t e = s.find('e'), dot = s.find('.');
        maxInt = std::max(maxInt, dot);
        maxFrac = std::max(maxFrac, e - dot - 1);
        maxExp = std::max(maxExp, s.size() - e - 1);
      }
      expSize = static_cast<int>(maxExp) - 1;
      precision = static_cast<int>(maxFrac);
      padLeft = static_cast<int>(maxInt);
      padRight = expSize + 2 + precision;
    } else {
      size_t maxInt = 0, maxFrac = 0;
      for (double v : finite) {
        std::string s = positional(v, dtype, kPrecision);
        size_t dot = s.find('.');
        maxInt = std::max(maxInt, dot);
        maxFrac = std::max(maxFrac, s.size() - dot - 1);
      }
      padLeft = static_cast<int>(maxInt);
      padRight = static_cast<int>(maxFrac);
    }
    if (finite.size() != data.size()) {
      bool negInf = false;
      for (double v : data)
        negInf |= std::isinf(v) && v < 0;
      int offset = padRight + 1;
      padLeft = std::max({padLeft, 3 - offset, 3 + (negInf ? 1 : 0) - offset});
    }
  }

  std::string operator()(double x) const {
    if (!std::isfinite(x)) {
      std::string r = std::isnan(x) ? "nan" : (x < 0 ? "-inf" : "inf");
      int width = padLeft + padRight + 1;
      return std::string(std::max<int>(0, width - r.size()), ' ') + r;
    }
    if (expFormat) {
      std::string s = scientific(x, dtype, precision, precision, expSize);
      size_t dot = s.find('.');
      return std::string(std::max<int>(0, padLeft - dot), ' ') + s;
    }
    std::string s = positional(x, dtype, kPrecision);
    size_t dot = s.find('.');
    int frac = static_cast<int>(s.size() - dot - 1);
    return std::string(std::max<int>(0, padLeft - dot), ' ') + s +
           std::string(std::max(0, padRight - frac), ' ');
  }

private:
  DType dtype;
  bool expFormat = false;
  int padLeft = 0, padRight = 0, precision = kPrecision, expSize = -1;
};

/// Visits the elements NumPy's summarized view keeps (all of them when not
/// summarizing), in row-major order.
void forEachShown(const TensorView &v, bool summarize,
                  const std::function<void(const int64_t *)> &fn) {
  std::vector<int64_t> index(v.rank(), 0);
  std::function<void(int64_t)> rec = [&](int64_t axis) {
    if (axis == v.rank()) {
      fn(index.data());
      return;
    }
    int64_t n = v.shape[axis];
    for (int64_t i = 0; i < n; ++i) {
      if (summarize && n > 2 * kEdgeItems && i == kEdgeItems)
        i = n - kEdgeItems;
      index[axis] = i;
      rec(axis + 1);
    }
  };
  rec(0);
}

/// _extendLine (legacy > 1.13).
void extendLine(std::string &s, std::string &line, const std::string &word,
                size_t lineWidth, const std::string &nextLinePrefix) {
  bool needsWrap = line.size() + word.size() > lineWidth;
  if (line.size() <= nextLinePrefix.size())
    needsWrap = false;
  if (needsWrap) {
    size_t end = line.find_last_not_of(' ');
    s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
    line = nextLinePrefix;
  }
  line += word;
}

/// _formatArray's recurser.
std::string formatArray(const TensorView &v, bool summarize,
                        const std::function<std::string(const int64_t *)> &fmt,
                        std::vector<int64_t> &index,
                        const std::string &hangingIndent, int currWidth) {
  size_t axis = index.size();
  int64_t axesLeft = v.rank() - static_cast<int64_t>(axis);
  if (axesLeft == 0)
    return fmt(index.data());
  std::string nextHangingIndent = hangingIndent + " ";
  int nextWidth = currWidth - 1;
  int64_t len = v.shape[axis];
  bool showSummary = summarize && 2 * kEdgeItems < len;
  int64_t leading = showSummary ? kEdgeItems : 0;
  int64_t trailing = showSummary ? kEdgeItems : len;

  auto recurse = [&](int64_t i) {
    index.push_back(i < 0 ? len + i : i);
    std::string r =
        formatArray(v, summarize, fmt, index, nextHangingIndent, nextWidth);
    index.pop_back();
    return r;
  };

  std::string s;
  if (axesLeft == 1) {
    size_t elemWidth = currWidth - 1;
    std::string line = hangingIndent;
    for (int64_t i = 0; i < leading; ++i) {
      extendLine(s, line, recurse(i), elemWidth, hangingIndent);
      line += " ";
    }
    if (showSummary) {
      extendLine(s, line, "...", elemWidth, hangingIndent);
      line += " ";
    }
    for (int64_t i = trailing; i > 1; --i) {
      extendLine(s, line, recurse(-i), elemWidth, hangingIndent);
      line += " ";
    }
    extendLine(s, line, recurse(-1), elemWidth, hangingIndent);
    s += line;
  } else {
    std::string lineSep(axesLeft - 1, '\n');
    for (int64_t i = 0; i < leading; ++i)
      s += hangingIndent + recurse(i) + lineSep;
    if (showSummary)
      s += hangingIndent + "..." + lineSep;
    for (int64_t i = trailing; i > 1; --i)
      s += hangingIndent + recurse(-i) + lineSep;
    s += hangingIndent + recurse(-1);
  }
  return "[" + s.substr(hangingIndent.size()) + "]";
}

struct Spec {
  char fill = ' ';
  char align = 0; // '<', '>', '^', '=' or 0 for the default
  char sign = '-';
  bool alternate = false;
  int width = 0;
  char grouping = 0;
  int precision = -1;
  char type = 0;
};

Spec parseSpec(std::string_view s) {
  Spec spec;
  size_t i = 0;
  auto isAlign = [](char c) {
    return c == '<' || c == '>' || c == '^' || c == '=';
  };
  if (s.size() >= 2 && isAlign(s[1])) {
    spec.fill = s[0];
    spec.align = s[1];
    i = 2;
  } else if (!s.empty() && isAlign(s[0])) {
    spec.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' '))
    spec.sign = s[i++];
  if (i < s.size() && s[i] == '#') {
    spec.alternate = true;
    ++i;
  }
  if (i < s.size() && s[i] == '0') {
    if (!spec.align) {
      spec.fill = '0';
      spec.align = '=';
    }
    ++i;
  }
  while (i < s.size() && s[i] >= '0' && s[i] <= '9')
    spec.width = spec.width * 10 + (s[i++] - '0');
  if (i < s.size() && (s[i] == ',' || s[i] == '_'))
    spec.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    spec.precision = 0;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
      spec.precision = spec.precision * 10 + (s[i] - '0');
  }
  if (i < s.size())
    spec.type = s[i];
  return spec;
}

/// Inserts `sep` every three digits of the leading run of digits.
std::string group(const std::string &digits, char sep, int every = 3) {
  size_t end = digits.find_first_not_of("0123456789");
  if (end == std::string::npos)
    end = digits.size();
  std::string head = digits.substr(0, end), out;
  for (size_t i = 0; i < head.size(); ++i) {
    if (i && (head.size() - i) % every == 0)
      out += sep;
    out += head[i];
  }
  return out + digits.substr(end);
}

std::string printfDouble(const char *fmt, int precision, double v) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, precision, v);
  return buf;
}

} // namespace

std::string formatWithSpec(const TensorView &scalar, std::string_view text) {
  Spec spec = parseSpec(text);
  bool isInt = !isFloat(scalar.dtype) &&
               (spec.type == 0 || spec.type == 'd' || spec.type == 'b' ||
                spec.type == 'o' || spec.type == 'x' || spec.type == 'X');
  bool negative;
  std::string body; // the digits, without sign
  if (isInt) {
    int64_t v = scalar.getAsInt(nullptr);
    negative = v < 0;
    uint64_t mag = negative ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    int base = spec.type == 'b'                         ? 2
               : spec.type == 'o'                       ? 8
               : (spec.type == 'x' || spec.type == 'X') ? 16
                                                        : 10;
    const char *digits =
        spec.type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
      body.insert(body.begin(), digits[mag % base]);
      mag /= base;
    } while (mag);
    if (spec.grouping)
      body = group(body, spec.grouping, base == 10 ? 3 : 4);
    if (spec.alternate && base != 10)
      body = std::string("0") +
             (base == 2   ? 'b'
              : base == 8 ? 'o'
                          : spec.type) +
             body;
  } else {
    double v = scalar.getAsDouble(nullptr);
    negative = std::signbit(v) && !std::isnan(v);
    double a = std::fabs(v);
    bool upper = spec.type == 'F' || spec.type == 'E' || spec.type == 'G';
    if (!std::isfinite(a)) {
      body = std::isnan(a) ? "nan" : "inf";
      if (upper)
        body = std::isnan(a) ? "NAN" : "INF";
      if (spec.type == '%')
        body += "%";
    } else {
      int p = spec.precision < 0 ? 6 : spec.precision;
      switch (spec.type) {
      case 'f':
      case 'F':
        body = printfDouble(spec.alternate ? "%#.*f" : "%.*f", p, a);
        break;
      case 'e':
      case 'E':
        body = printfDouble(spec.alternate ? "%#.*e" : "%.*e", p, a);
        break;
      case 'g':
      case 'G':
        body =
            printfDouble(spec.alternate ? "%#.*g" : "%.*g", p == 0 ? 1 : p, a);
        break;
      case '%':
        body =
            printfDouble(spec.alternate ? "%#.*f" : "%.*f", p, a * 100) + "%";
        break;
      default:
        if (spec.precision < 0) {
          // No type and no precision: str() of the value as a Python float.
          body = formatFloatScalar(a, DType::F64);
        } else {
          // Python's 'g' variant: a fixed-point result keeps a digit after
          // the point.
          body = printfDouble("%.*g", p == 0 ? 1 : p, a);
          if (body.find_first_of(".en") == std::string::npos)
            body += ".0";
        }
      }
      if (upper)
        for (char &c : body)
          c = static_cast<char>(std::toupper(c));
      if (spec.grouping)
        body = group(body, spec.grouping);
    }
  }

  std::string sign = negative           ? "-"
                     : spec.sign == '+' ? "+"
                     : spec.sign == ' ' ? " "
                                        : "";
  size_t len = sign.size() + body.size();
  size_t pad =
      spec.width > 0 && size_t(spec.width) > len ? spec.width - len : 0;
  char align = spec.align ? spec.align : '>';
  switch (align) {
  case '<':
    return sign + body + std::string(pad, spec.fill);
  case '^':
    return std::string(pad / 2, spec.fill) + sign + body +
           std::string(pad - pad / 2, spec.fill);
  case '=':
    return sign + std::string(pad, spec.fill) + body;
  default:
    return std::string(pad, spec.fill) + sign + body;
  }
}

std::string formatFloatScalar(double value, DType dtype) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  double a = std::fabs(value);
  if (a == 0 || (a >= 1e-4 && a < 1e16)) {
    std::string s = positional(value, dtype, 400);
    if (s.back() == '.')
      s += "0";
    return s;
  }
  std::string s = scientific(value, dtype, 400, 0, 2);
  // Python drops a bare point: "1.e+20" -> "1e+20".
  size_t dot = s.find(".e");
  if (dot != std::string::npos)
    s.erase(dot, 1);
  return s;
}

std::string formatTensor(const TensorView &v) {
  if (v.rank() == 0) {
    if (isFloat(v.dtype))
      return formatFloatScalar(v.getAsDouble(nullptr), v.dtype);
    if (v.dtype == DType::Bool)
      return v.getAsInt(nullptr) ? "True" : "False";
    return std::to_string(v.getAsInt(nullptr));
  }
  if (numElements(v.shape) == 0)
    return "[]";
  bool summarize = numElements(v.shape) > kThreshold;

  std::function<std::string(const int64_t *)> fmt;
  std::vector<double> floats;
  FloatFormat *floatFormat = nullptr;
  std::unique_ptr<FloatFormat> floatFormatOwner;
  if (isFloat(v.dtype)) {
    forEachShown(v, summarize, [&](const int64_t *idx) {
      floats.push_back(v.getAsDouble(idx));
    });
    floatFormatOwner = std::make_unique<FloatFormat>(floats, v.dtype);
    floatFormat = floatFormatOwner.get();
    fmt = [&](const int64_t *idx) {
      return (*floatFormat)(v.getAsDouble(idx));
    };
  } else if (v.dtype == DType::Bool) {
    fmt = [&](const int64_t *idx) {
      return std::string(v.getAsInt(idx) ? " True" : "False");
    };
  } else {
    size_t width = 0;
    forEachShown(v, summarize, [&](const int64_t *idx) {
      width = std::max(width, std::to_string(v.getAsInt(idx)).size());
    });
    fmt = [&, width](const int64_t *idx) {
      std::string s = std::to_string(v.getAsInt(idx));
      return std::string(width - s.size(), ' ') + s;
    };
  }
  std::vector<int64_t> index;
  return formatArray(v, summarize, fmt, index, " ", kLineWidth);
}

} // namespace tflrt
