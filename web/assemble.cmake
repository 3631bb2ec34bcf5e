# assemble.cmake - writes the page's one file: web/index.html with @STYLE@, @APP@ and @ENGINE@
# replaced by web/style.css, web/app.js, and the engine (the emscripten module, then
# web/worker.js). cmake -DSRC=web -DENGINE=infersim.js -DOUT=index.html -DVERSION=x -P assemble.cmake
cmake_minimum_required(VERSION 3.16)
file(READ ${SRC}/index.html page)
file(READ ${SRC}/style.css style)
file(READ ${SRC}/app.js app)
file(READ ${ENGINE} engine)
file(READ ${SRC}/worker.js worker)
set(engine "${engine}\n${worker}")
# the engine sits in a <script type="text/plain">: its text must not close that element
foreach(part engine app)
  string(FIND "${${part}}" "</script" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "assemble: the ${part} script holds '</script' (at ${at})")
  endif()
endforeach()
string(REPLACE "@STYLE@" "${style}" page "${page}")
string(REPLACE "@VERSION@" "${VERSION}" page "${page}")
string(REPLACE "@APP@" "${app}" page "${page}")
string(REPLACE "@ENGINE@" "${engine}" page "${page}")
file(WRITE ${OUT} "${page}")
