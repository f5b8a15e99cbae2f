// TFL.g4 - The grammar of TFL (see lang/README.md and LANGUAGE.md).
//
// Lexical structure is Python's. The lexer emits NEWLINE tokens carrying the
// next line's indentation; frontend/lib/IndentingTokenSource.cpp turns them
// into NEWLINE/INDENT/DEDENT, drops newlines inside brackets (implicit line
// joining) and blank or comment-only lines, and rejects tabs in indentation.
// Keeping that out of the grammar keeps it free of target-language actions.

grammar TFL;

tokens { INDENT, DEDENT }

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

file : (NEWLINE | stmt)* EOF ;

// One expression alone: the fields of f-strings are parsed with this.
exprInput : expr NEWLINE? EOF ;

stmt : simpleStmts | compoundStmt ;

simpleStmts : simpleStmt (';' simpleStmt)* ';'? NEWLINE ;

simpleStmt
  : exprList '=' (exprList '=')* exprList              # assignStmt
  | expr ':' expr ('=' expr)?                          # annAssignStmt
  | expr augOp=('+=' | '-=' | '*=' | '/=' | '//=' | '%=' | '**=' | '@=') expr
                                                       # augAssignStmt
  | 'return' exprList?                                 # returnStmt
  | 'pass'                                             # passStmt
  | 'break'                                            # breakStmt
  | 'continue'                                         # continueStmt
  | 'import' dottedAsName (',' dottedAsName)*          # importStmt
  | 'from' dottedName 'import' importAsName (',' importAsName)*
                                                       # fromImportStmt
  | 'assert' expr (',' expr)?                          # assertStmt
  | exprList                                           # exprStmt
  ;

dottedName : NAME ('.' NAME)* ;
dottedAsName : dottedName ('as' NAME)? ;
importAsName : NAME ('as' NAME)? ;

compoundStmt
  : ifStmt
  | whileStmt
  | forStmt
  | withStmt
  | funcDef
  | classDef
  ;

ifStmt : 'if' expr ':' block ('elif' expr ':' block)* ('else' ':' block)? ;
whileStmt : 'while' expr ':' block ;
forStmt : 'for' targetList 'in' exprList ':' block ;

// The targets of `for` and of comprehensions: names, nested in parentheses
// or brackets, and `*rest` (Python's starred target).
targetList : target (',' target)* ','? ;
target
  : NAME                 # nameTarget
  | '*' NAME             # starTarget
  | '(' targetList ')'   # parenTarget
  | '[' targetList ']'   # bracketTarget
  ;
// Only `with device("cpu"|"cuda"):` (placement; see lang/README.md).
withStmt : 'with' expr ':' block ;

decorator : '@' dottedName NEWLINE ;
funcDef : decorator* 'def' NAME '(' params? ')' ('->' expr)? ':' block ;
params : param (',' param)* ','? ;
param : NAME (':' expr)? ('=' expr)? ;
classDef : decorator* 'class' NAME ':' block ;

block : simpleStmts | NEWLINE INDENT stmt+ DEDENT ;

// A comma-separated list; more than one item (or a trailing comma) is a tuple.
exprList : expr (',' expr)* ','? ;

// Alternatives from the tightest binding to the loosest (Python's order).
expr
  : atom                                                  # atomExpr
  | expr '.' NAME                                         # attributeExpr
  | expr '(' args? ')'                                    # callExpr
  | expr '[' subscripts ']'                               # subscriptExpr
  | <assoc=right> expr '**' expr                          # powerExpr
  | op=('+' | '-') expr                                   # unaryExpr
  | expr op=('*' | '@' | '/' | '//' | '%') expr           # mulExpr
  | expr op=('+' | '-') expr                              # addExpr
  | expr (op=('<' | '<=' | '>' | '>=' | '==' | '!=' | 'in') | notIn='not' 'in')
    expr                                                  # compareExpr
  | 'not' expr                                            # notExpr
  | expr 'and' expr                                       # andExpr
  | expr 'or' expr                                        # orExpr
  | <assoc=right> expr 'if' expr 'else' expr              # condExpr
  | 'lambda' lambdaParams? ':' expr                       # lambdaExpr
  | '*' expr                                              # starredExpr
  ;

lambdaParams : NAME (',' NAME)* ;

atom
  : '(' ')'                                    # emptyTupleAtom
  | '(' expr ')'                               # parenAtom
  | '(' expr ',' (expr (',' expr)* ','?)? ')'  # tupleAtom
  | '[' expr 'for' targetList 'in' expr ']'    # listCompAtom
  | '[' (expr (',' expr)* ','?)? ']'           # listAtom
  | NAME                                       # nameAtom
  | INT                                        # intAtom
  | FLOAT                                      # floatAtom
  | (STRING | LONG_STRING)+                    # stringAtom
  | FSTRING                                    # fstringAtom
  | 'True'                                     # trueAtom
  | 'False'                                    # falseAtom
  | 'None'                                     # noneAtom
  | '...'                                      # ellipsisAtom
  | '?'                                        # dynamicDimAtom
  ;

args : arg (',' arg)* ','? ;
arg : NAME '=' expr | expr ;

subscripts : subscript (',' subscript)* ','? ;
subscript
  : expr                                    # indexSubscript
  | lo=expr? ':' hi=expr? (':' step=expr?)? # sliceSubscript
  ;

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

DEF : 'def' ;
RETURN : 'return' ;
IF : 'if' ;
ELIF : 'elif' ;
ELSE : 'else' ;
FOR : 'for' ;
IN : 'in' ;
WHILE : 'while' ;
BREAK : 'break' ;
CONTINUE : 'continue' ;
PASS : 'pass' ;
IMPORT : 'import' ;
FROM : 'from' ;
AS : 'as' ;
AND : 'and' ;
OR : 'or' ;
NOT : 'not' ;
TRUE : 'True' ;
FALSE : 'False' ;
NONE : 'None' ;
LAMBDA : 'lambda' ;
ASSERT : 'assert' ;
CLASS : 'class' ;
WITH : 'with' ;

// A line break and the indentation of the next line.
NEWLINE : ('\r'? '\n' | '\r') [ \t\f]* ;

FSTRING : [fF] (SHORT_DQ | SHORT_SQ) ;
LONG_STRING : '"""' .*? '"""' | '\'\'\'' .*? '\'\'\'' ;
STRING : SHORT_DQ | SHORT_SQ ;
fragment SHORT_DQ : '"' (ESCAPE | ~["\\\r\n])* '"' ;
fragment SHORT_SQ : '\'' (ESCAPE | ~['\\\r\n])* '\'' ;
fragment ESCAPE : '\\' . ;

FLOAT
  : DIGITS '.' DIGITS? EXPONENT?
  | '.' DIGITS EXPONENT?
  | DIGITS EXPONENT
  ;
INT : DIGITS ;
fragment DIGITS : [0-9] ('_'? [0-9])* ;
fragment EXPONENT : [eE] [+-]? DIGITS ;

NAME : [a-zA-Z_] [a-zA-Z_0-9]* ;

SKIP_WS : [ \t\f]+ -> skip ;
SKIP_COMMENT : '#' ~[\r\n]* -> skip ;
SKIP_LINE_JOIN : '\\' [ \t]* ('\r'? '\n' | '\r') -> skip ;

// Anything else is reported as a syntax error at its position.
ERROR_CHAR : . ;
